// pgpass (node-postgres's reader of libpq's password file) ships no typings.
declare module "pgpass" {
  type ConnectionInfo = { host?: string | null; port?: number | string | null; database?: string | null; user?: string | null };
  /** Calls back with the password the file gives `connection`, or undefined. */
  function pgpass(connection: ConnectionInfo, callback: (password: string | undefined) => void): void;
  export default pgpass;
}
