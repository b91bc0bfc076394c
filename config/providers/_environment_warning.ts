// The one warning a process gets when a configuration asks for environment
// variables and the runtime refuses them (Deno without --allow-env): printed
// once on stderr, so the cause is seen without calling diagnose().

let warned = false;

/** Warns once per process that the environment could not be read. */
export function warnEnvironmentUnavailable(
  source: string,
  error: string,
): void {
  if (warned) return;
  warned = true;
  console.warn(
    `Kit configuration: environment variables could not be read for ${source} (${error}); ` +
      `values from the environment are missing. In Deno, run with --allow-env (or --allow-env=<names>).`,
  );
}
