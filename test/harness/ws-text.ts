import type WebSocket from 'ws';

/** A WebSocket message's text: ws hands a Buffer (a list of them for a fragmented message, an ArrayBuffer when asked). */
export function wsText(data: WebSocket.RawData): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
