// The one rule for a redirect answered to a POST that carries a key:
// followed only within the origin it was sent to, only with a status that
// keeps the method and the body, and only a few times.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_REDIRECTS,
  redirectVerdict,
} from "../../internal/delivery/redirect.ts";

const FROM = "http://127.0.0.1:4318/v1/logs?key=secret";

function answer(status: number, location?: string): Response {
  return new Response(null, {
    status,
    headers: location === undefined ? {} : { location },
  });
}

describe("redirectVerdict()", () => {
  it("is undefined for an answer that is no redirect", () => {
    assert.equal(redirectVerdict(answer(200), FROM, 0), undefined);
    assert.equal(redirectVerdict(answer(503), FROM, 0), undefined);
  });

  it("follows a 307 or 308 within the origin, resolving a relative Location", () => {
    assert.deepEqual(redirectVerdict(answer(307, "/v2/logs"), FROM, 0), {
      follow: "http://127.0.0.1:4318/v2/logs",
    });
    assert.deepEqual(
      redirectVerdict(answer(308, "http://127.0.0.1:4318/x"), FROM, 4),
      { follow: "http://127.0.0.1:4318/x" },
    );
  });

  it("refuses another origin, naming origins only", () => {
    assert.deepEqual(
      redirectVerdict(
        answer(307, "http://localhost:4318/v1/logs?t=1"),
        FROM,
        0,
      ),
      {
        refused: "other-origin",
        from: "http://127.0.0.1:4318",
        to: "http://localhost:4318",
      },
    );
  });

  it("refuses a redirect that would turn the POST into a GET", () => {
    for (const status of [301, 302, 303]) {
      assert.deepEqual(redirectVerdict(answer(status, "/new"), FROM, 0), {
        refused: "method-change",
        from: "http://127.0.0.1:4318",
        to: "/new",
      });
    }
  });

  it("refuses a redirect without a valid Location, and one too many", () => {
    assert.deepEqual(redirectVerdict(answer(307), FROM, 0), {
      refused: "no-location",
      from: "http://127.0.0.1:4318",
    });
    assert.deepEqual(
      redirectVerdict(answer(307, "http://[::1"), FROM, 0),
      { refused: "no-location", from: "http://127.0.0.1:4318" },
    );
    assert.deepEqual(redirectVerdict(answer(307, "/x"), FROM, MAX_REDIRECTS), {
      refused: "too-many",
      from: "http://127.0.0.1:4318",
    });
  });
});
