// How each config kind is named to users, in its own module: the status bar (config-host
// bundle) and `agentrl check` need the names without the detection code behind them.
import type { ConfigKind } from '../../feature-api/config-checker';

export const KIND_LABEL: Record<ConfigKind, string> = { trinity: 'Trinity-RFT', astuner: 'ASTuner', ajet: 'AgentJet' };
