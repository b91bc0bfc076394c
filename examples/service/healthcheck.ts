/**
 * The container's health probe (`HEALTHCHECK CMD node dist/healthcheck.js`):
 * `GET /health` on the service's port; exit 0 on a 2xx answer within 2.5 s,
 * else 1. The image has no curl, so this small script does the request.
 *
 * @module
 */
import process from "node:process";

const port = process.env.PORT || "3000";
try {
  const response = await fetch(`http://127.0.0.1:${port}/health`, {
    signal: AbortSignal.timeout(2_500),
  });
  await response.body?.cancel();
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  console.error(
    `health probe failed: ${
      error instanceof Error ? error.message : String(error)
    }`,
  );
  process.exit(1);
}
