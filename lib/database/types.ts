/**
 * What every engine offers the domain: one transaction at a time, statements written once in
 * the portable SQL both engines speak (see README "Writing SQL for both engines"), `?` for
 * parameters. A module that must say something one engine cannot (a row lock, a search index)
 * branches on `tx.engine` inside its one function.
 */
export type Engine = "sqlite" | "postgres";

export type Params = readonly unknown[];

export type Tx = {
  readonly engine: Engine;
  /** The first row as an object, or undefined. */
  get<Row = Record<string, unknown>>(text: string, params?: Params): Promise<Row | undefined>;
  /** Every row as an object. */
  all<Row = Record<string, unknown>>(text: string, params?: Params): Promise<Row[]>;
  /** Every row as an array of its columns, in the SELECT's order (cheaper on long reads). */
  rows<Tuple extends unknown[] = unknown[]>(text: string, params?: Params): Promise<Tuple[]>;
  /** Runs a statement; answers how many rows it changed. */
  run(text: string, params?: Params): Promise<number>;
};

export type WriteOptions = {
  /** How long to wait for the database's write lock (SQLite) before failing; housekeeping waits less. */
  waitMs?: number;
};

export type Database = {
  readonly engine: Engine;
  /** Runs `work` in one write transaction; a throw rolls it back. `work` awaits only `tx`. */
  write<T>(work: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Runs `work` in one read transaction: a consistent snapshot across its statements. */
  read<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * One statement that is its whole write transaction, its rows as objects. On PostgreSQL it runs
   * on its own (a statement is atomic), one round trip instead of BEGIN, it, COMMIT: for a hot
   * write an engine can say in one statement. Inside a `write` it joins that transaction.
   */
  writeStatement<Row = Record<string, unknown>>(text: string, params?: Params): Promise<Row[]>;
  /**
   * Group commit: like `write`, but `work` may share its transaction with the other `writeGrouped`
   * calls made while this process was busy (SQLite: the same turn of the event loop; a lone one
   * runs at once), each run in turn and all committed at once; each caller gets its own result
   * only after that commit. When
   * one `work` throws, the group rolls back and each of its `work`s runs again in a transaction of
   * its own, so one caller's failure is never another's. So `work` reads and writes only through
   * `tx` (not its caller's async context), and answers an expected outcome (a row, or none)
   * instead of throwing it. Inside a `write` it joins that transaction. PostgreSQL commits each
   * on its own pooled connection, concurrently: there it is `write`.
   */
  writeGrouped<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A value two calls answer alike only when nothing changed the database between them, from any
   * process: what lets a reader answer again what it read after the first (lib/handoffs'
   * whole-thread reads). null when the engine cannot tell cheaply (PostgreSQL), and while this
   * process is inside a write transaction, whose changes may yet be rolled back.
   */
  changeStamp(): Promise<string | null>;
  /**
   * Whether the caller may be inside a write transaction of this process, whose changes may yet be
   * rolled back: what it reads now must not be remembered past it. SQLite answers for the process
   * (its transactions run one at a time), PostgreSQL for the caller's own async context.
   */
  insideWrite(): boolean;
  /** Whether the database answers (the health endpoint). */
  ping(): Promise<void>;
  close(): Promise<void>;
};
