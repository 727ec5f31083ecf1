export const roleKeys = {
  all: ['roles'] as const,
  isAdmin: (userId: string) => [...roleKeys.all, 'is-admin', userId] as const,
  isContentCreator: (userId: string) => [...roleKeys.all, 'is-content-creator', userId] as const,
}
