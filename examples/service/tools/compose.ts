/**
 * Reads `examples/service/docker-compose.yml` with a YAML parser, for the
 * compose test and the container check.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { SERVICE_DIR } from "./pack_kit.ts";

/** The parts of a compose service the checks read. */
export interface ComposeService {
  build?: { context?: string; dockerfile?: string } | string;
  image?: string;
  command?: string[] | string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: {
    test?: string[] | string;
    interval?: string;
    timeout?: string;
    start_period?: string;
    retries?: number;
  };
}

/** The parsed compose file. */
export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * Parses the service's compose file.
 *
 * @param path The file (default: the service's docker-compose.yml).
 * @returns The parsed file.
 */
export async function readCompose(
  path: string = join(SERVICE_DIR, "docker-compose.yml"),
): Promise<ComposeFile> {
  return parse(await readFile(path, "utf8")) as ComposeFile;
}
