import QRCode from 'qrcode'

/** `text` as a QR code drawn with block characters (the qrcode package's terminal renderer). */
export function terminalQr(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' })
}
