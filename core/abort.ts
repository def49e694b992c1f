/**
 * Settles like `work` unless `signal` fires first; then it rejects at once with `reason(signal)` (by
 * default the signal's own reason). Work that ignores its signal no longer holds up the caller: its late
 * result is dropped and a late rejection is swallowed rather than left unhandled.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, reason: (signal: AbortSignal) => unknown = (s) => s.reason): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      work.catch(() => undefined);
      reject(reason(signal));
      return;
    }
    const onAbort = () => reject(reason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
