declare module "elkjs/lib/elk-worker.min.js" {
  /** A worker-shaped object that runs ELK on the current thread. */
  export const Worker: new () => globalThis.Worker;
}
