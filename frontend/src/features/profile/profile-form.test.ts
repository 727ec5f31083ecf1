import { describe, expect, it } from 'vitest'
import { formatChileanPhone, isChileanPhone, profileProblems } from './profile-form'
import { isProfileComplete } from './api/profile'

describe('isProfileComplete', () => {
  it('needs first_name, last_name and how_found_us', () => {
    expect(isProfileComplete({ first_name: 'Ana', last_name: 'Pérez', how_found_us: 'Un colega' })).toBe(true)
    expect(isProfileComplete({ first_name: 'Ana', last_name: 'Pérez', how_found_us: null })).toBe(false)
    expect(isProfileComplete({ first_name: ' ', last_name: 'Pérez', how_found_us: 'x' })).toBe(false)
    expect(isProfileComplete(null)).toBe(false)
  })
})

describe('Chilean phones', () => {
  it('accepts what people type and formats it', () => {
    for (const typed of ['+56 9 8765 4321', '987654321', '56987654321', '(9) 8765-4321', '+56.9.8765.4321'])
      expect(formatChileanPhone(typed)).toBe('+56 9 8765 4321')
    expect(formatChileanPhone('222345678')).toBe('+56 2 2234 5678')
  })
  it('refuses what set_phone would refuse', () => {
    for (const typed of ['12345', '+54 9 8765 4321', '187654321', '9876543210', 'nueve'])
      expect(isChileanPhone(typed)).toBe(false)
  })
})

describe('profileProblems', () => {
  it('names each missing or wrong field', () => {
    expect(profileProblems({ first_name: '', last_name: 'P', how_found_us: '', phone: '123' })).toEqual({
      first_name: 'Escribe tu nombre.',
      how_found_us: 'Cuéntanos cómo conociste Cielo.',
      phone: 'Escribe un número chileno, por ejemplo +56 9 1234 5678.',
    })
    expect(profileProblems({ first_name: 'Ana', last_name: 'Pérez', how_found_us: 'YouTube', phone: '' })).toEqual({})
  })
})
