/** The teacher's weekly schedule (horario). */
export * from './grid'
