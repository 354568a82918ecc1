import { createInterface } from 'node:readline';

/**
 * A passphrase typed at the terminal, not shown as it is typed; undefined when the process has no terminal (a
 * service under a supervisor then reads it from a file).
 */
export function terminalPassphrase(): ((question: string) => Promise<string>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return (question) =>
    new Promise((resolve) => {
      const reader = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      let asked = false;
      // What readline echoes after the question is the passphrase: nothing of it reaches the screen.
      const output = reader as unknown as { _writeToOutput: (text: string) => void };
      output._writeToOutput = (text: string) => {
        if (!asked) process.stderr.write(text);
      };
      reader.question(question, (answer) => {
        reader.close();
        process.stderr.write('\n');
        resolve(answer);
      });
      asked = true;
    });
}
