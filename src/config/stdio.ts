// The server's side of the `--stdio` transport (editors other than VS Code, which uses IPC):
// the library's stream writer sends each message's header and body as two writes, and on a
// pipe every write is a system call that wakes the client for half a message. This writer
// frames the same bytes (`Content-Length: n\r\n\r\n` + UTF-8 JSON) and sends them at once.
import { format } from 'util';
import { AbstractMessageWriter, type Message, type MessageWriter, type RemoteConsole } from 'vscode-languageserver/node';

export class OneWriteMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(private readonly out: NodeJS.WritableStream) {
    super();
    out.on('error', (err: Error) => this.fireError(err));
    out.on('close', () => this.fireClose());
  }

  write(msg: Message): Promise<void> {
    const json = JSON.stringify(msg);
    // the header is ASCII, so one UTF-8 string carries both
    const frame = `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`;
    return new Promise((resolve, reject) => {
      this.out.write(frame, 'utf8', (err?: Error | null) => {
        if (!err) return resolve();
        this.errorCount++;
        this.fireError(err, msg, this.errorCount);
        reject(err);
      });
    });
  }

  end(): void {
    this.out.end();
  }
}

/** Sends `console.*` to the client's log: with stdio, stdout carries the protocol (the library
 *  does this itself only when it opens stdio from the command line). */
export function consoleToClient(remote: RemoteConsole): void {
  const text = (args: unknown[]) => format(...args);
  console.log = (...args: unknown[]) => remote.log(text(args));
  console.info = (...args: unknown[]) => remote.info(text(args));
  console.debug = (...args: unknown[]) => remote.log(text(args));
  console.warn = (...args: unknown[]) => remote.warn(text(args));
  console.error = (...args: unknown[]) => remote.error(text(args));
  console.trace = (...args: unknown[]) => remote.log(`${text(args)}\n${new Error().stack ?? ''}`);
}
