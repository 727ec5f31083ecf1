/**
 * Her phone, decrypted for her alone (`rpc('decrypt_phone')`), and saving the profile form:
 * the phone through `rpc('set_phone')`, which encrypts it, then the other fields.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import { useAuth } from '@/lib/auth/auth-provider'
import { profileKeys } from './profile'

/** Her phone, decrypted for her alone (the ciphertext is in her profile). */
export function usePhone(encrypted: string | null | undefined) {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: profileKeys.phone(user?.id ?? '', encrypted ?? ''),
    queryFn: async (): Promise<string> => {
      const { data, error } = await supabase.rpc('decrypt_phone', { encrypted_phone: encrypted ?? '' })
      if (error) throw error
      return data
    },
    enabled: Boolean(user && encrypted),
    staleTime: Infinity,
    meta: { action: 'cargar tu teléfono' },
  })
}

export interface ProfileChanges {
  first_name: string
  last_name: string
  how_found_us: string
  school_rbd: number | null
  /** The phone as typed; '' clears it, undefined leaves it as it is. */
  phone?: string | undefined
}

/**
 * Saves her profile: the phone first (`set_phone` checks and encrypts it, so a wrong number
 * leaves everything as it was), then the other fields in one upsert.
 */
export function useSaveProfile() {
  const supabase = useSupabase()
  const { user } = useAuth()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (changes: ProfileChanges) => {
      if (!user) throw new Error('Debes iniciar sesión para guardar tu perfil.')
      if (changes.phone !== undefined) {
        const { error } = await supabase.rpc('set_phone', { phone: changes.phone })
        if (error) throw error
      }
      const { error } = await supabase.from('profiles').upsert(
        {
          user_id: user.id,
          first_name: changes.first_name,
          last_name: changes.last_name,
          how_found_us: changes.how_found_us,
          school_rbd: changes.school_rbd,
        },
        { onConflict: 'user_id' },
      )
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: profileKeys.all }),
  })
}

