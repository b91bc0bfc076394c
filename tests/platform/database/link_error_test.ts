// A connection the server ends as it opens: PostgreSQL shutting down (a
// restart, `pg_ctl -m fast stop`) can send the end of a new connection's
// start-up and its FATAL in one write, which the driver reads in one go,
// before Kit holds the connection. Nothing may then end the process: the
// statement fails as the server being unreachable. The server here is a
// few lines on loopback that answer exactly that, since a real one does it
// only by chance; it runs in a child process, where an unhandled driver
// error shows as the child's exit.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lastJson, runChildScript } from "../../_support/child_script.ts";
import { moduleUrl } from "../../_support/module_url.ts";

describe("a connection the server ends as it opens", () => {
  it("fails the statement as unreachable and leaves the process running", {
    timeout: 60_000,
  }, async () => {
    const database = moduleUrl("platform").replace(
      /mod\.(ts|js)$/,
      "database/mod.$1",
    );
    const child = await runChildScript(
      `import { createServer } from "node:net";
import { Buffer } from "node:buffer";
import { Database } from ${JSON.stringify(database)};

const message = (type, body) => {
  const bytes = Buffer.alloc(5 + body.length);
  bytes.write(type, 0);
  bytes.writeInt32BE(4 + body.length, 1);
  body.copy(bytes, 5);
  return bytes;
};
// AuthenticationOk, ReadyForQuery, then FATAL 57P01, in one write.
const server = createServer((socket) => {
  socket.once("data", () => {
    socket.end(Buffer.concat([
      message("R", Buffer.from([0, 0, 0, 0])),
      message("Z", Buffer.from("I")),
      message("E", Buffer.from(
        "SFATAL\\0VFATAL\\0C57P01\\0Mterminating connection due to administrator command\\0\\0",
      )),
    ]));
  });
  socket.on("error", () => {});
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const db = new Database({
  connectionString: \`postgres://kit@127.0.0.1:\${server.address().port}/kit\`,
  timeout: 2000,
  logger: { warning: () => {}, info: () => {}, debug: () => {}, error: () => {} },
});
const result = await db.query("SELECT 1").then(
  () => "answered",
  (error) => error.name,
);
await db.dispose();
server.close();
console.log(JSON.stringify({ result }));
`,
      { timeoutMs: 50_000 },
    );
    assert.equal(child.code, 0, child.out);
    assert.deepEqual(lastJson(child), { result: "DatabaseUnavailableError" });
  });
});
