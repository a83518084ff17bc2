export declare const projectRoot: string;
export declare const bundleCacheDir: string;
export declare const bundleManifestFile: string;
/** The bundle's layout; a manifest of another version is stale. */
export declare const BUNDLE_VERSION: number;
/** The entry file of the current bundle when no input changed since it was built, else null. */
export declare function freshBundleEntry(): string | null;
/** Runs `baton mcp <args>` and returns its exit code. */
export declare function launch(args: string[]): Promise<number>;
