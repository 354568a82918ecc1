/** What a person at the till notices without looking: a vibration and a tone, where the device allows them. */
export function announceOutcome(paid: boolean): void {
  navigator.vibrate?.(paid ? [120, 60, 120] : [400]);
  const AudioContextClass = window.AudioContext as typeof AudioContext | undefined;
  if (!AudioContextClass) return;
  // Browsers allow sound after a tap on the page (the Charge button was one); a refusal leaves the screen to tell.
  const audio = new AudioContextClass();
  const tone = audio.createOscillator();
  const volume = audio.createGain();
  tone.frequency.value = paid ? 880 : 220;
  volume.gain.value = 0.15;
  tone.connect(volume).connect(audio.destination);
  tone.onended = () => void audio.close();
  tone.start();
  tone.stop(audio.currentTime + (paid ? 0.3 : 0.6));
}

interface NdefWriter {
  write(message: { records: { recordType: 'url'; data: string }[] }): Promise<void>;
}

/** Whether this browser can write NFC tags (Web NFC: Chrome on Android). */
export function canWriteNfc(): boolean {
  return 'NDEFReader' in window;
}

/** Writes `url` to the next NFC tag or card held to the device, as one NDEF URI record. */
export function writeNfcLink(url: string): Promise<void> {
  const Reader = (window as unknown as { NDEFReader: new () => NdefWriter }).NDEFReader;
  return new Reader().write({ records: [{ recordType: 'url', data: url }] });
}
