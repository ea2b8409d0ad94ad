import jsQR from 'jsqr'

/** A readable reason for a getUserMedia failure (Media Capture and Streams §10.2 error names). */
export function cameraErrorMessage(error: unknown): string {
  const name = error instanceof DOMException || error instanceof Error ? error.name : ''
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return 'Camera permission was denied: allow the camera for this site in the browser, or upload an image of the QR code instead.'
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'No camera was found: upload an image of the QR code or paste its text instead.'
    case 'NotReadableError':
    case 'AbortError':
      return 'The camera could not be started (another application may be using it): try again, or upload an image instead.'
    default:
      return `The camera could not be used${error instanceof Error && error.message ? ` (${error.message})` : ''}: upload an image of the QR code instead.`
  }
}

/** getUserMedia exists only in a secure context (https or localhost). */
export function cameraSupported(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function'
}

/** The back camera when there is one (a phone), any camera otherwise; no audio. */
export function openCamera(): Promise<MediaStream> {
  return navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: 'environment' } }, audio: false })
}

/**
 * Reads a QR code from the video's current frame, drawn scaled down to at most 640 px wide
 * (enough for a code that fills part of the picture, and cheap on a phone); null when none.
 */
export function decodeVideoFrame(video: HTMLVideoElement, canvas: HTMLCanvasElement): string | null {
  if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA || !video.videoWidth) return null
  const scale = Math.min(1, 640 / video.videoWidth)
  const width = Math.round(video.videoWidth * scale)
  const height = Math.round(video.videoHeight * scale)
  if (canvas.width !== width) canvas.width = width
  if (canvas.height !== height) canvas.height = height
  const context = canvas.getContext('2d', { willReadFrequently: true })
  if (!context) return null
  context.drawImage(video, 0, 0, width, height)
  const pixels = context.getImageData(0, 0, width, height)
  return jsQR(pixels.data, width, height, { inversionAttempts: 'attemptBoth' })?.data ?? null
}
