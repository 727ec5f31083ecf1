/** Creación Contenido: the content creators' resources and the OAs' suggested indicators. */
export { ResourcesPanel } from './components/resources-panel'
export { IndicatorsPanel } from './components/indicators-panel'
export { KIND_LABELS, STATUS_LABELS, resourceProblem, type Resource, type ResourceValues } from './api/resources'
export { nextPosition, type Indicator } from './api/indicators'
