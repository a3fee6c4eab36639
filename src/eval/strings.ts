// The comparison view's words, localized here (the page has no vscode.l10n).
import * as vscode from 'vscode';
import type { EvalStrings } from './protocol/messages';

export function evalStrings(): EvalStrings {
  return {
    task: vscode.l10n.t('Task'),
    mean: vscode.l10n.t('mean@k'),
    pass: vscode.l10n.t('pass@k'),
    diff: vscode.l10n.t('Difference'),
    regressionsOnly: vscode.l10n.t('Regressions only'),
    restsOn: vscode.l10n.t('Rests on {0} of {1} tasks · {2}: {3} failed episodes · {4}: {5} failed episodes'),
    failed: vscode.l10n.t('{0} failed'),
    pickTask: vscode.l10n.t('Click a task to see both transcripts side by side.'),
    turn: vscode.l10n.t('Turn'),
    differs: vscode.l10n.t('The two models differ at this turn'),
    noTranscript: vscode.l10n.t('No recorded episode of this task.'),
    baseline: vscode.l10n.t('Baseline'),
    compared: vscode.l10n.t('Compared'),
    eachAgainst: vscode.l10n.t('Each model against {0}'),
    axis: vscode.l10n.t('{0}% interval of the mean reward difference, {1} − {2}'),
    better: vscode.l10n.t('{0} better'),
  };
}
