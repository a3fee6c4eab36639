// AgentScope 2.x has no `agentscope.tuner` (it lives on the v1 branch, 1.0.18–1.0.21; Trinity's
// `agent` extra requires agentscope[tuner]>=1.0.19 in its pyproject.toml). A Trinity config whose
// workflow runs through the tuner adapter, in a workspace that pins or installs AgentScope 2.x,
// gets a warning naming the versions it needs.
import * as path from 'path';
import { l10n } from '../../core/l10n-text';
import { compareVersions } from '../../core/versions';
import { workspacePin } from '../../workspace/pins';
import { report, type Rule } from '../context';
import { items } from './common';
import { valueText } from '../../../base/value-text';

/** The AgentScope releases that have `agentscope.tuner`. */
export const AGENTSCOPE_TUNER_SPEC = 'agentscope>=1.0.19,<2';
const TUNER_WORKFLOWS = new Set(['agentscope_workflow_adapter_v1', 'agentscope_workflow_adapter']);

export const agentscopeTunerRule: Rule = {
  id: 'trinity.agentscope-tuner',
  run(ctx) {
    const v = ctx.view;
    const sites: string[] = [];
    if (TUNER_WORKFLOWS.has(v.str('buffer.explorer_input.default_workflow_type') ?? '')) sites.push('buffer.explorer_input.default_workflow_type');
    if (TUNER_WORKFLOWS.has(v.str('buffer.explorer_input.taskset.default_workflow_type') ?? ''))
      sites.push('buffer.explorer_input.taskset.default_workflow_type');
    items(v, 'buffer.explorer_input.tasksets').forEach((t, i) => {
      if (TUNER_WORKFLOWS.has(valueText(t.default_workflow_type ?? ''))) sites.push(`buffer.explorer_input.tasksets[${i}].default_workflow_type`);
    });
    if (!sites.length) return;
    const pin = workspacePin([...ctx.roots, ...(ctx.file ? [path.dirname(ctx.file)] : [])], 'agentscope');
    if (!pin || compareVersions(pin.version, '2') < 0) return;
    const where =
      pin.spec === 'installed'
        ? l10n.t('agentscope {0} is installed ({1})', pin.version, pin.file)
        : l10n.t('{0} pins `{1}`', path.basename(pin.file), pin.spec);
    for (const p of sites) {
      report(ctx, {
        severity: 'warning',
        code: 'trinity.agentscope.tuner-v2',
        message: l10n.t(
          '`{0}` runs workflows through agentscope.tuner, which needs {1}; {2}, and AgentScope 2.x has no agentscope.tuner.',
          v.str(p),
          AGENTSCOPE_TUNER_SPEC,
          where,
        ),
        path: p,
        span: v.span(p),
      });
    }
  },
};
