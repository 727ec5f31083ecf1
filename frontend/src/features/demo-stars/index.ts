/** Estrellas Cielo: demo users' daily usage, shown in the sidebar. */
export { StarsWidget } from './components/stars-widget'
export { generationBlock, useDemoStars, useRecordStarUse } from './api/demo-stars'
