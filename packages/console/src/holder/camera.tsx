import { useEffect, useRef, useState } from 'preact/hooks'
import { cameraErrorMessage, cameraSupported, decodeVideoFrame, openCamera } from '../lib/camera-qr.ts'

/** Frames are read a few times a second: enough to catch a code held still, light on a phone. */
const FRAME_INTERVAL_MS = 150

/**
 * Scans a QR code with the device's camera (getUserMedia, decoded with jsQR in the page): the
 * picture never leaves the browser. Stops on the first code read, on Stop, or when it unmounts.
 */
export function CameraScanner({ onCode }: { onCode: (text: string) => void }) {
  const [state, setState] = useState<'idle' | 'starting' | 'scanning'>('idle')
  const [error, setError] = useState<string>()
  const video = useRef<HTMLVideoElement>(null)
  const canvas = useRef<HTMLCanvasElement>(document.createElement('canvas'))
  const stream = useRef<MediaStream | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const found = useRef(onCode)
  found.current = onCode

  const stop = () => {
    clearTimeout(timer.current)
    stream.current?.getTracks().forEach((t) => t.stop())
    stream.current = null
    if (video.current) video.current.srcObject = null
    setState('idle')
  }
  useEffect(() => stop, [])

  const start = async () => {
    setError(undefined)
    if (!cameraSupported()) {
      setError(
        'This browser offers no camera here (it needs https or localhost): upload an image of the QR code instead.',
      )
      return
    }
    setState('starting')
    try {
      stream.current = await openCamera()
    } catch (e) {
      setState('idle')
      setError(cameraErrorMessage(e))
      return
    }
    setState('scanning')
  }

  // Once the <video> is rendered: attach the stream, then read frames until a code is found.
  useEffect(() => {
    if (state !== 'scanning' || !video.current || !stream.current) return
    const el = video.current
    el.srcObject = stream.current
    void el.play().catch(() => {
      /* muted inline video plays without a gesture; frames are read either way */
    })
    const tick = () => {
      const text = decodeVideoFrame(el, canvas.current)
      if (text) {
        stop()
        found.current(text)
        return
      }
      timer.current = setTimeout(tick, FRAME_INTERVAL_MS)
    }
    tick()
    return () => clearTimeout(timer.current)
  }, [state])

  return (
    <div class="camera">
      {state === 'idle' ? (
        <button type="button" onClick={() => void start()}>
          Scan with the camera
        </button>
      ) : (
        <>
          <video
            ref={video}
            muted
            playsInline
            aria-label="Camera picture: hold the QR code in view"
            data-testid="camera-video"
          />
          <p role="status">{state === 'starting' ? 'Starting the camera…' : 'Looking for a QR code…'}</p>
          <button type="button" onClick={stop}>
            Stop the camera
          </button>
        </>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  )
}
