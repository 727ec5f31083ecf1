/** Where the route guard sends someone back to after signing in (the auth page's location state). */
export interface RedirectState {
  from?: string
}
