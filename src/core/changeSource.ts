/**
 * Tells the engine that something under a folder may have changed, so it can
 * read at once instead of waiting for its next poll. Delivery is best effort:
 * the engine's poll (`tick()`) is the safety net for missed events (network
 * file systems, WSL). The chokidar adapter is src/platform/chokidarChangeSource.ts.
 */
export interface Disposable {
  dispose(): void | Promise<void>;
}

export interface ChangeSource {
  /** Watch these folders (recursively, to a small depth); call onChange with the absolute path that changed. */
  watch(folders: string[], onChange: (path: string) => void): Disposable;
}
