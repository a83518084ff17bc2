// @ts-check
/**
 * A reader that goes away (`baton export … | head`, an MCP client or a hook runner that exited)
 * closes the pipe Baton writes to. Node then fails the next write with EPIPE, an 'error' event
 * nobody handles, and dies printing a stack trace. A shell's own commands stop quietly there
 * (SIGPIPE, which Node ignores); so does every entry point of Baton: nothing it writes can reach
 * that reader any more. Logs on a closed standard error are dropped and the command goes on.
 */
export function stopQuietlyWhenReaderLeaves() {
  process.stdout.on("error", (error) => {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  process.stderr.on("error", (error) => {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EPIPE") throw error;
  });
}
