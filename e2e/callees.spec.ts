import { expect, test, type Locator } from '@playwright/test';
import { action, expectState, gutterNumber, lineOf, openLesson, pythonReady, HOOKS, widget } from './helpers';

const RUNTIME = 'core/runtime.py';
const BEFORE = lineOf(RUNTIME, 'before = run_hooks(hooks, "before", call)');
const BLOCKED = lineOf(RUNTIME, 'if before["blocked"] is not None:');
const GUARDED = lineOf(RUNTIME, 'result = execute_guarded(call, env, ask)');
const CALLBACK = lineOf(RUNTIME, 'answer = callback(view)');
const AUTHORIZE = lineOf(RUNTIME, 'if not authorize_call(call, ask):');
const RULE = lineOf(RUNTIME, 'rule = permission_for(call["name"])');

const TEXT = {
  zh: { pausedIn: (f: string, n: number) => `暂停在 ${f} 的第 ${n} 行`, stack: '调用栈', tabs: '可以单步进入的函数', shared: '与 execute_hooked 的 call 是同一个对象' },
  en: { pausedIn: (f: string, n: number) => `Paused in ${f} at line ${n}`, stack: 'Call stack', tabs: 'Functions you can step into', shared: 'the same object as call in execute_hooked' },
} as const;

async function pausedIn(w: Locator, fn: string, line: number) {
  await expectState(w, { status: 'paused', fn, line });
}

const stackOf = (w: Locator) => w.locator('[data-panel="stack"] [data-frame]');

for (const lang of ['zh', 'en'] as const) {
  const T = TEXT[lang];

  test(`${lang}: step into run_hooks and out, then into execute_guarded and authorize_call (keyboard and clicks)`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    const w = widget(page, 'execute_hooked');
    await w.locator('input[type="radio"][value="pass"]').check();
    await expect(w.getByRole('tablist', { name: T.tabs }).getByRole('tab')).toHaveText(['execute_hooked', 'run_hooks', 'execute_guarded', 'authorize_call']);
    await gutterNumber(w, BEFORE).click();
    await action(w, 'debug').click();
    await pausedIn(w, 'execute_hooked', BEFORE);

    // F11 enters the callee: its own code (real line numbers), the call stack, its arguments
    await action(w, 'step-into').focus();
    await page.keyboard.press('F11');
    await expect(w).toHaveAttribute('data-fn', 'run_hooks');
    await expect(w).toHaveAttribute('data-shown', 'run_hooks');
    await expect(w.getByRole('tab', { name: 'run_hooks' })).toHaveAttribute('aria-selected', 'true');
    await expect(gutterNumber(w, CALLBACK)).toBeVisible();
    await expect(w.locator('[role="status"]')).toContainText(T.pausedIn('run_hooks', lineOf(RUNTIME, 'def run_hooks(hooks, event, payload):')));
    await expect(stackOf(w)).toHaveCount(2);
    // each frame with its arguments as passed
    await expect(stackOf(w).nth(0)).toContainText("run_hooks(hooks={'before'");
    await expect(stackOf(w).nth(0)).toContainText("event='before', payload={'id': 'run_1'");
    await expect(stackOf(w).nth(1)).toContainText(`${RUNTIME}:${BEFORE}`);
    await expect(w.locator('[data-var="event"]')).toContainText("'before'");
    // the callee's payload is the caller's call itself, not a copy
    await expect(w.locator('[data-var="payload"] [data-shared]')).toHaveAttribute('data-shared', 'execute_hooked.call');
    await expect(w.locator('[data-var="payload"] [data-shared]')).toContainText(T.shared);
    await expect(w.locator('[data-var="view"] [data-shared]')).toHaveCount(0);
    // Step back crosses frames too: back in the caller at the call, and in again
    await page.keyboard.press('Shift+F10');
    await pausedIn(w, 'execute_hooked', BEFORE);
    await expect(w).toHaveAttribute('data-shown', 'execute_hooked');
    await page.keyboard.press('F11');
    await expect(w).toHaveAttribute('data-fn', 'run_hooks');

    // a breakpoint in the callee: Continue shows the before-callbacks running one by one
    await gutterNumber(w, CALLBACK).click();
    await expect(w).toHaveAttribute('data-breakpoints', `${BEFORE},run_hooks:${CALLBACK}`);
    await page.keyboard.press('F8');
    await pausedIn(w, 'run_hooks', CALLBACK);
    await expect(w.locator('[data-var="callback"]')).toContainText('audit_before');
    await page.keyboard.press('F8');
    await pausedIn(w, 'run_hooks', CALLBACK);
    await expect(w.locator('[data-var="callback"]')).toContainText('maintenance_check');
    // the address records the callee's breakpoint by name
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toContain(`run_hooks:${CALLBACK}`);

    // Shift+F11: to run_hooks' return (its value shown), then back in the caller
    await page.keyboard.press('Shift+F11');
    await expect(w.locator('[data-var="(return)"]')).toContainText("'blocked': None");
    await page.keyboard.press('Shift+F11');
    await pausedIn(w, 'execute_hooked', BLOCKED);
    await expect(w).toHaveAttribute('data-shown', 'execute_hooked');
    await expect(stackOf(w)).toHaveCount(1);

    // step over to the guarded call, into it, and into the permission check
    await action(w, 'step-over').click();
    await pausedIn(w, 'execute_hooked', GUARDED);
    await action(w, 'step-into').click();
    await expect(w).toHaveAttribute('data-fn', 'execute_guarded');
    while ((await w.getAttribute('data-line')) !== String(AUTHORIZE)) await action(w, 'step-over').click();
    await action(w, 'step-into').click();
    await expect(w).toHaveAttribute('data-fn', 'authorize_call');
    await action(w, 'step-over').click();
    await pausedIn(w, 'authorize_call', RULE);
    await action(w, 'step-over').click();
    await expect(w.locator('[data-var="rule"]')).toContainText("'ask'");
    await expect(stackOf(w)).toHaveCount(3);
    await action(w, 'step-out').click();
    await expect(w.locator('[data-var="(return)"]')).toContainText('True');

    // clicking the outer frame shows where it stands and its variables; the next step follows the current frame again
    await stackOf(w).nth(2).click();
    await expect(w).toHaveAttribute('data-shown', 'execute_hooked');
    await expect(w.locator('.cm-line.sl-current')).toContainText('result = execute_guarded(call, env, ask)');
    await expect(w.locator('[data-var="before"]')).toContainText("'blocked': None");
    await expect(w.locator('[data-var="rule"]')).toHaveCount(0);
    await action(w, 'step-over').click();
    await expect(w).toHaveAttribute('data-shown', 'execute_guarded');
  });
}

test('a deep link with a breakpoint in a callee opens with it set, and Debug stops there', async ({ page }) => {
  await page.goto(`en/${HOOKS}#widget=execute_hooked&scenario=pass&breakpoints=run_hooks:${CALLBACK}`);
  await pythonReady(page);
  const w = widget(page, 'execute_hooked');
  await expect(w).toHaveAttribute('data-breakpoints', `run_hooks:${CALLBACK}`);
  await action(w, 'debug').click();
  await pausedIn(w, 'run_hooks', CALLBACK);
  await expect(w.getByRole('tab', { name: 'run_hooks' })).toHaveAttribute('aria-selected', 'true');
});
