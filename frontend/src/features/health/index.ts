/** "Estado de Cielo": the public status page of the gateway's services. */
export { HealthPage } from './components/health-page'
