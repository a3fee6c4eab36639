// For a synchronous implementation of an interface that returns a promise.

/** Runs `run` now and gives its result as a promise; a throw becomes a rejection, as from an `async` function. */
export function asPromise<T>(run: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(run()));
}
