// The breakpoints a debug session has: event breakpoints from launch.json's `breakOn` and
// from the Breakpoints view (function breakpoints), and the exception filters. Kept apart
// from the session because both kinds arrive at any time and are merged for the runtime.
import type { DebugProtocol } from '@vscode/debugprotocol';
import { EXCEPTION_FILTERS, parseBreakpoint, type EventBreakpoint, type ExceptionFilter } from '../runtime/breakpoints';
import type { RunHandle } from './launch';

export class BreakpointSettings {
  private functionBreakpoints: EventBreakpoint[] = [];
  private launchBreakpoints: EventBreakpoint[] = [];
  private filters: ExceptionFilter[] = EXCEPTION_FILTERS.filter((f) => f.default).map((f) => f.filter);

  /** launch.json `breakOn`; returns the problems of the entries that do not parse. */
  setLaunch(breakOn: readonly unknown[]): string[] {
    const problems: string[] = [];
    this.launchBreakpoints = [];
    for (const b of breakOn) {
      const p = parseBreakpoint(String(b));
      if (p.ok) this.launchBreakpoints.push(p.bp);
      else problems.push(p.message);
    }
    return problems;
  }

  /** The Breakpoints view's function breakpoints (each an event breakpoint). */
  setFunction(args: DebugProtocol.SetFunctionBreakpointsArguments): DebugProtocol.SetFunctionBreakpointsResponse['body'] {
    this.functionBreakpoints = [];
    return {
      breakpoints: args.breakpoints.map((b) => {
        const p = parseBreakpoint(b.name);
        if (p.ok) this.functionBreakpoints.push(p.bp);
        return p.ok ? { verified: true } : { verified: false, message: p.message };
      }),
    };
  }

  setExceptions(args: DebugProtocol.SetExceptionBreakpointsArguments): DebugProtocol.SetExceptionBreakpointsResponse['body'] {
    const known = new Set(EXCEPTION_FILTERS.map((f) => f.filter));
    this.filters = args.filters.filter((f): f is ExceptionFilter => known.has(f as ExceptionFilter));
    return { breakpoints: args.filters.map((f) => ({ verified: known.has(f as ExceptionFilter) })) };
  }

  /** Gives the runtime the exception filters only (function breakpoints wait for applyAll). */
  applyFilters(rt: RunHandle | undefined): void {
    rt?.setExceptionFilters(this.filters);
  }

  applyAll(rt: RunHandle | undefined): void {
    rt?.setBreakpoints([...this.launchBreakpoints, ...this.functionBreakpoints]);
    rt?.setExceptionFilters(this.filters);
  }
}
