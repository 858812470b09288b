/** Deep links: `#widget=execute_hooked&scenario=block&breakpoints=122,run_hooks:98&step=12`. */
import type { Initial } from '../widget/store';

export interface Link extends Initial {
  widget: string;
}

export function parseLink(hash: string): Link | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const widget = params.get('widget');
  if (!widget) return null;
  const link: Link = { widget };
  const scenario = params.get('scenario');
  if (scenario) link.scenario = scenario;
  // "98" (a line of the widget's function) or "run_hooks:97" (a line of a function it steps into)
  const breakpoints = (params.get('breakpoints') ?? '')
    .split(',')
    .flatMap((b): (number | string)[] => (/^\d+$/.test(b) && Number(b) > 0 ? [Number(b)] : /^[A-Za-z_][\w.]*:\d+$/.test(b) ? [b] : []));
  if (breakpoints.length) link.breakpoints = breakpoints;
  const step = Number(params.get('step'));
  if (Number.isInteger(step) && step > 0) link.step = step - 1;
  return link;
}

/** A breakpoint as a link names it: "98" (a line of the widget's function, symbol null) or "run_hooks:98". */
export function splitBreakpoint(bp: number | string): { symbol: string | null; line: number } {
  const text = String(bp);
  const colon = text.lastIndexOf(':');
  return colon < 0 ? { symbol: null, line: Number(text) } : { symbol: text.slice(0, colon), line: Number(text.slice(colon + 1)) };
}

export function formatLink(link: Link): string {
  const params = new URLSearchParams({ widget: link.widget });
  if (link.scenario) params.set('scenario', link.scenario);
  if (link.breakpoints?.length) params.set('breakpoints', link.breakpoints.join(','));
  if (link.step !== undefined) params.set('step', String(link.step + 1));
  return `#${params.toString().replace(/%2C/g, ',').replace(/%3A/g, ':')}`;
}
