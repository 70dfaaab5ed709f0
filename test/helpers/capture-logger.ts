import { LoggerService } from '@nestjs/common';

/** A Nest logger that keeps what it is told, to count warnings. */
export class CaptureLogger implements LoggerService {
  readonly lines: { level: string; message: string }[] = [];
  log(message: unknown) {
    this.lines.push({ level: 'log', message: String(message) });
  }
  warn(message: unknown) {
    this.lines.push({ level: 'warn', message: String(message) });
  }
  error(message: unknown) {
    this.lines.push({ level: 'error', message: String(message) });
  }
  count(level: string, pattern: RegExp): number {
    return this.lines.filter((line) => line.level === level && pattern.test(line.message)).length;
  }
}
