/**
 * The http hooks' receiver alone in its process, for the transports section: what the http
 * transport costs when nothing else shares the receiver's event loop (in `watch` the engine does).
 * Usage: node receiverChild.cjs CLAUDE_DIR; prints one line `serving PORT` (or the state it reached).
 */
import { HookReceiverService } from '../src/platform/hookReceiverService';

const service = new HookReceiverService(process.argv[2] ?? '', () => Date.now());
void service.refresh().then((s) => process.stdout.write(`${s.state === 'serving' ? `serving ${s.port}` : `${s.state} ${s.detail ?? ''}`}\n`));
process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
