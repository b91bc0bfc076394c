// Kit's one file reader against real files: a regular file up to its limit,
// a file past it (by its size, and by what is read when the size says
// nothing), and what is not a regular file, refused before a byte is read
// and without waiting: a real FIFO (mkfifo), the real /dev/zero, a folder.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { mkdtemp, open, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  FileTooLargeError,
  NotRegularFileError,
  readBoundedFile,
  readBoundedTextFile,
} from "../../internal/bounded_file.ts";

const posix = process.platform !== "win32";

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "kit-bounded-file-"));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Settles `promise` or fails after `ms`: a read that blocks must not hang
// the run.
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`still waiting after ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("readBoundedFile()", () => {
  it("reads a regular file of up to the limit, and a link to one", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "ten.txt");
      await writeFile(path, "0123456789");
      assert.equal(
        await readBoundedTextFile(path, { limit: 10 }),
        "0123456789",
      );
      const bytes = await readBoundedFile(path, { limit: 10, timeout: 5_000 });
      assert.equal(bytes.length, 10);
      if (posix) {
        await symlink(path, join(dir, "link.txt"));
        assert.equal(
          await readBoundedTextFile(join(dir, "link.txt"), { limit: 10 }),
          "0123456789",
        );
      }
    });
  });

  it("refuses a file past the limit by its size, before reading", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "eleven.txt");
      await writeFile(path, "0123456789A");
      await assert.rejects(readBoundedFile(path, { limit: 10 }), (error) => {
        assert.ok(error instanceof FileTooLargeError);
        assert.equal(error.path, path);
        assert.equal(error.limit, 10);
        assert.equal(error.size, 11);
        assert.equal(error.declared, true);
        assert.equal(
          error.message,
          `${path} is larger than the limit of 10 bytes: it has 11 bytes`,
        );
        return true;
      });
    });
  });

  it(
    "stops one byte past the limit when the size says nothing (/proc)",
    {
      skip: existsSync("/proc/self/status")
        ? false
        : "no /proc file system here",
    },
    async () => {
      // Files under /proc report size 0 and have content.
      await assert.rejects(
        readBoundedFile("/proc/self/status", { limit: 16 }),
        (error) => {
          assert.ok(error instanceof FileTooLargeError);
          assert.equal(error.declared, false);
          assert.equal(error.size, 17);
          assert.match(error.message, /more than 16 bytes were read$/);
          return true;
        },
      );
    },
  );

  it(
    "refuses a FIFO at once, without waiting for a writer",
    { skip: posix ? false : "no FIFOs on Windows" },
    async () => {
      await withDir(async (dir) => {
        const path = join(dir, "pipe");
        execFileSync("mkfifo", [path]);
        try {
          const error = await within(
            readBoundedFile(path, { limit: 1024 }).then(
              () => assert.fail("read"),
              (error: unknown) => error,
            ),
            5_000,
          );
          assert.ok(error instanceof NotRegularFileError);
          assert.equal(error.kind, "a FIFO");
          assert.equal(
            error.message,
            `${path} is not a regular file (a FIFO); name a regular file`,
          );
        } finally {
          // Lets go of a reader that would wait (none should).
          await open(path, constants.O_WRONLY | (constants.O_NONBLOCK ?? 0))
            .then((handle) => handle.close(), () => {});
        }
      });
    },
  );

  it(
    "refuses a device (/dev/zero, through a link too) before a byte is read",
    { skip: existsSync("/dev/zero") ? false : "no /dev/zero here" },
    async () => {
      await withDir(async (dir) => {
        await symlink("/dev/zero", join(dir, "settings.json"));
        for (const path of ["/dev/zero", join(dir, "settings.json")]) {
          const error = await within(
            readBoundedFile(path, { limit: 1024 * 1024 * 1024 }).then(
              () => assert.fail("read"),
              (error: unknown) => error,
            ),
            5_000,
          );
          assert.ok(error instanceof NotRegularFileError, String(error));
          assert.equal(error.kind, "a device");
          assert.equal(error.path, path);
        }
      });
    },
  );

  it("refuses a folder, and passes a missing file's error on", async () => {
    await withDir(async (dir) => {
      await assert.rejects(readBoundedFile(dir, { limit: 10 }), (error) => {
        assert.ok(error instanceof NotRegularFileError);
        assert.equal(error.kind, "a folder");
        return true;
      });
      await assert.rejects(
        readBoundedFile(join(dir, "missing"), { limit: 10 }),
        { code: "ENOENT" },
      );
    });
  });
});
