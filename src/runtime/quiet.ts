/**
 * A quiet moment of the page: no reader input (pointer, touch, key, click, wheel, scroll, input)
 * for `ms`, nothing busy, and then an idle callback. The memory snapshot (tens of MB) is stored
 * then, not while the reader steps through a trace: on a 2-core machine, stored 2 s after a run it
 * raised the step latency p95 of the reader's first clicks from 6 to 10 ms.
 */
const INPUT = ['pointerdown', 'touchstart', 'keydown', 'click', 'wheel', 'scroll', 'input'] as const;

/** Call `then` once, at the first quiet moment; returns a cancel function. */
export function whenQuiet(then: () => void, busy: () => boolean, ms = 2000): () => void {
  if (typeof window === 'undefined') return () => {};
  let timer = 0;
  let idle = 0;
  const stop = () => {
    clearTimeout(timer);
    if (idle) cancelIdle(idle);
    idle = 0;
  };
  const arm = () => {
    stop();
    timer = window.setTimeout(() => {
      if (busy()) return arm();
      idle = requestIdle(() => {
        cancel();
        then();
      });
    }, ms);
  };
  const cancel = () => {
    stop();
    for (const type of INPUT) window.removeEventListener(type, arm, true);
  };
  for (const type of INPUT) window.addEventListener(type, arm, { capture: true, passive: true });
  arm();
  return cancel;
}

// Safari has no requestIdleCallback: a timer stands in for it
const requestIdle = (f: () => void): number => (typeof requestIdleCallback === 'function' ? requestIdleCallback(f, { timeout: 2000 }) : window.setTimeout(f, 0));
const cancelIdle = (id: number) => (typeof cancelIdleCallback === 'function' ? cancelIdleCallback(id) : clearTimeout(id));

/**
 * The page has done its own loading work (module evaluation, hydration, the code panes' editors):
 * resolves at the first idle period of `idleMs` or more once the document has loaded, and after
 * `atMostMs` in any case, so a page that stays busy still gets on. Python's start waits for it:
 * started alongside that work, it took the page's second core, and the page's tasks ran over 50 ms
 * (1.1 long tasks a cold load beside 0.25-0.5, Python ready no later: start-up is CPU-bound).
 */
export function whenSettled(idleMs = 40, atMostMs = 2500): Promise<void> {
  return new Promise((resolve) => {
    if (typeof window === 'undefined') return resolve();
    let settled = false;
    const done = () => {
      settled = true;
      clearTimeout(by);
      resolve();
    };
    const by = window.setTimeout(done, atMostMs);
    if (typeof requestIdleCallback !== 'function') {
      // Safari: the load event, then a task
      if (document.readyState === 'complete') return void window.setTimeout(done);
      return void window.addEventListener('load', () => window.setTimeout(done), { once: true });
    }
    const check = (deadline: IdleDeadline) => {
      if (settled) return; // (at atMostMs): no more idle callbacks on a page that stays busy
      if (document.readyState === 'complete' && deadline.timeRemaining() >= idleMs) done();
      else requestIdleCallback(check);
    };
    requestIdleCallback(check);
  });
}
