/** The holder wallet lives in src/holder/: this module keeps the page's import path. */
export { HolderPage } from '../holder/holder-page.tsx'
