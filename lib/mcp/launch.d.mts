export declare const projectRoot: string;
export declare const bundleCacheDir: string;
export declare const bundleManifestFile: string;
/** The entry file of the current bundle when no input changed since it was built, else null. */
export declare function freshBundleEntry(): string | null;
/** Runs `baton mcp <args>` and returns its exit code. */
export declare function launch(args: string[]): Promise<number>;
