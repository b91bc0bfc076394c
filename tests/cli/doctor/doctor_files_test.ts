// The files the doctor reads are regular files of a bounded size: a .npmrc
// that is a FIFO (which kept the doctor waiting for a writer for ever) or a
// link to /dev/zero (which it read to the memory's end) is reported as a
// failed check naming the file, and the other checks still run. Real FIFOs
// made with mkfifo, a real link to the real device.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { open, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { describe, it, test } from "node:test";
import { checksOf, doctorSkip, fixture, runDoctorJson } from "./_doctor_run.ts";

const skip = doctorSkip !== false
  ? doctorSkip
  : process.platform === "win32"
  ? "no FIFOs or /dev/zero on Windows"
  : false;

// Opens the FIFO for writing once, so a reader waiting on it (the doctor
// before it refused FIFOs) is let go.
async function releaseFifo(path: string): Promise<void> {
  try {
    const writer = await open(
      path,
      constants.O_WRONLY | (constants.O_NONBLOCK ?? 0),
    );
    await writer.close();
  } catch {
    // ENXIO: no reader waits. Nothing to release.
  }
}

if (skip !== false) {
  test("kit doctor: files that are not regular files", { skip }, () => {});
} else {
  describe("kit doctor: files that are not regular files", () => {
    it("a .npmrc that is a FIFO is a failed check naming it, at once", async () => {
      await using project = await fixture("healthy");
      const npmrc = join(project.dir, ".npmrc");
      await rm(npmrc);
      execFileSync("mkfifo", [npmrc]);
      try {
        const started = performance.now();
        const { code, report } = await runDoctorJson([project.dir], {
          userNpmrc: project.userNpmrc,
          timeout: 60_000,
        });
        const elapsed = Math.round(performance.now() - started);
        console.log(`doctor on a FIFO .npmrc: done in ${elapsed} ms`);
        assert.equal(code, 1);
        const check = checksOf(report, "Registry").find((check) =>
          check.name === "npmrc"
        );
        assert.deepEqual(check, {
          group: "Registry",
          name: "npmrc",
          status: "fail",
          message:
            `${npmrc} is not a regular file (a FIFO), so it was not read`,
          advice: "replace it with a regular file, or remove it",
        });
        // The other groups ran.
        assert.ok(checksOf(report, "Compiler").length > 0);
        assert.ok(checksOf(report, "Configuration").length > 0);
      } finally {
        await releaseFifo(npmrc);
      }
    });

    it(
      "a .npmrc that links to /dev/zero is refused as a device before a byte is read",
      { skip: existsSync("/dev/zero") ? false : "no /dev/zero here" },
      async () => {
        await using project = await fixture("healthy");
        const npmrc = join(project.dir, ".npmrc");
        await rm(npmrc);
        await symlink("/dev/zero", npmrc);
        const { code, report, stderr } = await runDoctorJson([project.dir], {
          userNpmrc: project.userNpmrc,
          timeout: 60_000,
        });
        assert.equal(code, 1, stderr);
        const check = checksOf(report, "Registry").find((check) =>
          check.name === "npmrc"
        );
        assert.equal(check?.status, "fail", JSON.stringify(report, null, 2));
        assert.equal(
          check?.message,
          `${npmrc} is not a regular file (a device), so it was not read`,
        );
      },
    );

    it("a package.json that is a FIFO is a failed project file check", async () => {
      await using project = await fixture("healthy");
      const manifest = join(project.dir, "package.json");
      await rm(manifest);
      execFileSync("mkfifo", [manifest]);
      // The user's .npmrc is a regular file: only the project's file fails.
      await writeFile(project.userNpmrc, "");
      try {
        const { code, report } = await runDoctorJson([project.dir], {
          userNpmrc: project.userNpmrc,
          timeout: 60_000,
        });
        assert.equal(code, 1);
        const check = checksOf(report, "Compiler").find((check) =>
          check.name === "project file"
        );
        assert.deepEqual(check, {
          group: "Compiler",
          name: "project file",
          status: "fail",
          message:
            `${manifest} is not a regular file (a FIFO), so it was not read`,
          advice: "replace it with a regular file, or remove it",
        });
      } finally {
        await releaseFifo(manifest);
      }
    });
  });
}
