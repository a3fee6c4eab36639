// Playground conversations saved in the workspace (.agentrl/online/conversations/<id>.json),
// so a session can be reopened, its rewards reviewed and its msg_ids found again.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Conversation } from '../protocol/playground-protocol';

export class ConversationStore {
  constructor(private readonly dir: string) {}

  save(c: Conversation): void {
    fs.mkdirSync(this.dir, { recursive: true });
    const file = this.file(c.id);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(c, null, 1));
    fs.renameSync(tmp, file);
  }

  load(id: string): Conversation | undefined {
    try {
      const c = JSON.parse(fs.readFileSync(this.file(id), 'utf8')) as Conversation;
      return c && Array.isArray(c.turns) ? c : undefined;
    } catch {
      return undefined;
    }
  }

  /** Newest first: id, title and last change. */
  list(): { id: string; title: string; updatedAt: number }[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: { id: string; title: string; updatedAt: number }[] = [];
    for (const n of names) {
      const c = this.load(n.slice(0, -5));
      if (c) out.push({ id: c.id, title: c.title, updatedAt: c.updatedAt });
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  private file(id: string): string {
    if (!/^[\w.-]+$/.test(id)) throw new Error(`bad conversation id: ${id}`);
    return path.join(this.dir, `${id}.json`);
  }
}

export function newConversationId(now = Date.now()): string {
  return `c-${now.toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
}
