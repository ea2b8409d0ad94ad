/** The holder wallet lives in src/holder/ (issue 35): this module keeps the page's import path. */
export { HolderPage } from '../holder/holder-page.tsx'
