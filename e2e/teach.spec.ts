import { expect, test, type Locator } from '@playwright/test';
import { action, expectState, gutterNumber, lineOf, openLesson, HOOKS, widget } from './helpers';

const RUNTIME = 'core/runtime.py';
const CALLBACK = lineOf(RUNTIME, 'answer = callback(view)');
const MAINTENANCE_ANSWER = lineOf(RUNTIME, 'if answer is None:');
const GUARDED = lineOf(RUNTIME, 'result = execute_guarded(call, env, ask)');
const NOT_EXECUTED = lineOf(RUNTIME, 'result = tool_result(call.get("id", "?"), f"not executed: {before[\'blocked\']}", True)');

const TEXT = {
  zh: {
    blocks: '首个阻止', blocked: '维护阻止', refused: '权限拒绝', compare: '对比场景',
    parted: `“维护阻止”和“权限拒绝”在 run_hooks 的第 ${MAINTENANCE_ANSWER} 行分开，第 21 步。`, onlyThere: `只在“权限拒绝”中执行：`,
    goto: '跳到第 21 步', history: '查看 callback 的变化', next: '下一次变化', question: '这一行执行完后，answer 的值是什么？', check: '核对',
    right: '答对了', wrong: '这次没猜中', proseLink: '打开“首个阻止”，停在第一个回调那一行', compareLink: '它们在 run_hooks 里维护检查的回答处分开',
  },
  en: {
    blocks: 'The first callback blocks', blocked: 'Blocked by the maintenance window', refused: 'Permission refused', compare: 'Compare with',
    parted: `“Blocked by the maintenance window” and “Permission refused” part in run_hooks at line ${MAINTENANCE_ANSWER}, step 21.`, onlyThere: 'Only in “Permission refused”: ',
    goto: 'Go to step 21', history: 'How callback changed', next: 'Next change', question: 'What will answer hold once this line has run?', check: 'Check',
    right: 'Right', wrong: 'Not this time', proseLink: 'Open “The first callback blocks”, paused on the first callback', compareLink: 'they part in run_hooks, where the maintenance check answers',
  },
} as const;

const count = (w: Locator, line: number) => w.locator(`.sl-count[data-line="${line}"]`);
const pick = (w: Locator, label: string) => w.getByRole('radio', { name: label }).check();

for (const lang of ['zh', 'en'] as const) {
  const T = TEXT[lang];

  test(`${lang}: after a run the gutter says how often each line ran; a line never run shows 0`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    const w = widget(page, 'run_hooks');
    await pick(w, T.blocks);
    await action(w, 'run').click();
    await expect(w).toHaveAttribute('data-status', 'finished');
    await expect(count(w, CALLBACK)).toHaveText('1×');
    await expect(count(w, lineOf(RUNTIME, 'for callback in tuple(hooks.get(event, ())):'))).toHaveText('1×');
    const never = MAINTENANCE_ANSWER + 1; // the `continue` of `if answer is None:`: the first callback blocks
    await expect(count(w, never)).toHaveText('0');
    await expect(count(w, never)).toHaveClass(/sl-count-zero/);
    // nothing is counted before a run, or while replaying
    await action(w, 'reset').click();
    await expect(w.locator('.sl-count')).toHaveCount(0);
  });

  test(`${lang}: compare two scenarios: only-in lines marked, where they part named, and a jump there`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    const w = widget(page, 'execute_hooked');
    await pick(w, T.blocked);
    await w.getByLabel(T.compare).selectOption({ label: T.refused });
    const panel = w.locator('[data-panel="compare"]');
    await expect(panel).toContainText(T.parted);
    await expect(panel.locator('[data-only-in="there"]')).toContainText(T.onlyThere);
    await expect(panel.locator('[data-only-in="there"]')).toContainText(String(GUARDED));
    await expect(panel.locator('[data-only-in="here"]')).toContainText(String(NOT_EXECUTED));
    // in the code: `result = execute_guarded(...)` reached only in the other run
    await expect(w.locator(`.cm-line[data-only="there"]`).filter({ hasText: 'result = execute_guarded(call, env, ask)' })).toHaveCount(1);
    await expect(w.locator(`.cm-line[data-only="here"]`).filter({ hasText: 'not executed' })).toHaveCount(1);
    await panel.getByRole('button', { name: T.goto }).click();
    await expect(w).toHaveAttribute('data-step', '21');
    await expect(w).toHaveAttribute('data-fn', 'run_hooks');
    // keyboard: stop comparing
    await w.getByLabel(T.compare).focus();
    await w.getByLabel(T.compare).selectOption('');
    await expect(panel.locator('[data-compare]')).toHaveCount(0);
  });

  test(`${lang}: a variable's history: each change, and a jump to the next one`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    const w = widget(page, 'run_hooks');
    await gutterNumber(w, CALLBACK).click();
    await action(w, 'debug').click();
    await expect(w).toHaveAttribute('data-line', String(CALLBACK));
    await w.getByRole('button', { name: T.history }).click();
    const history = w.locator('[data-panel="history"]');
    await expect(history.locator('[data-history-step]')).toHaveCount(2);
    await expect(history.locator('[data-history-step]').nth(0)).toContainText('note_call');
    await expect(history.locator('[data-history-step]').nth(1)).toContainText('check_program');
    const second = await history.locator('[data-history-step]').nth(1).getAttribute('data-history-step');
    await history.getByRole('button', { name: T.next }).press('Enter');
    await expect(w).toHaveAttribute('data-step', second!);
    await expect(w.locator('[data-var="callback"]')).toContainText('check_program');
    await history.locator('[data-history-step]').nth(0).click();
    await expect(w.locator('[data-var="callback"]')).toContainText('note_call');
  });

  test(`${lang}: predict what answer will hold, checked against the run, then step to see it`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    const w = widget(page, 'run_hooks');
    await pick(w, T.blocks);
    await gutterNumber(w, CALLBACK).click();
    await action(w, 'debug').click();
    const predict = w.locator('[data-panel="predict"]');
    await expect(predict).toContainText(T.question);
    const input = predict.getByRole('textbox');
    await input.fill('None');
    await input.press('Enter');
    await expect(predict.locator('[data-right]')).toContainText(T.wrong);
    await input.fill("'run_main is switched off in this demo'");
    await predict.getByRole('button', { name: T.check }).click();
    await expect(predict.locator('[data-right="true"]')).toContainText(T.right);
    await page.keyboard.press('F10');
    await expect(w.locator('[data-var="answer"]')).toContainText('run_main is switched off in this demo');
    await expect(predict).toHaveCount(0);
  });

  test(`${lang}: links in the prose drive the widget on the page`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    // followed from the keyboard: no pointer coordinates, so the page moving under the pointer
    // cannot send the click elsewhere (a code pane above the link settles its height, ~100 px,
    // when it first scrolls into view)
    await page.getByRole('link', { name: T.proseLink }).press('Enter');
    const w = widget(page, 'run_hooks');
    await expectState(w, { scenario: 'block', status: 'paused', step: 8, line: CALLBACK, breakpoints: CALLBACK });
    await expect.poll(() => page.evaluate(() => location.hash)).toContain('widget=run_hooks');
    await page.getByRole('link', { name: T.compareLink }).press('Enter');
    const hooked = widget(page, 'execute_hooked');
    await expectState(hooked, { scenario: 'block', step: 20, fn: 'run_hooks', line: MAINTENANCE_ANSWER });
    await expect(hooked).toBeInViewport();
  });
}
