// @ts-check
/**
 * Standard output that cannot be written. A reader that goes away (`baton export … | head`, an MCP
 * client or a hook runner that exited) closes the pipe: Node fails the next write with EPIPE, an
 * 'error' event nobody handles, and dies printing a stack trace. A shell's own commands stop
 * quietly there (SIGPIPE, which Node ignores), and so does every entry point of Baton: nothing it
 * writes can reach that reader any more. Any other failure (a full disk under `> file`) ends the
 * command in one line. Logs on a closed standard error are dropped and the command goes on.
 *
 * `baton mcp` answers its client on standard output, and a client that leaves must not end it in
 * the middle of the calls it sent: its transport handles standard output itself
 * (lib/mcp/stdio-transport.ts finishes the calls in flight first), so its entry passes
 * `{ stdout: false }`.
 * @param {{ stdout?: boolean }} [options]
 */
export function endOnUnwritableOutput({ stdout = true } = {}) {
  if (stdout) {
    process.stdout.on("error", (error) => {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      if (code === "EPIPE") process.exit(process.exitCode ?? 0);
      process.stderr.write(`baton: cannot write to standard output: ${error.message.split("\n")[0]}${code && !error.message.includes(code) ? ` (${code})` : ""}\n`);
      process.exit(1);
    });
  }
  process.stderr.on("error", (error) => {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EPIPE") throw error;
  });
}
