export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  public: {
    Tables: {
      admin_alerts: {
        Row: {
          created_at: string
          id: string
          is_resolved: boolean
          message: string
          metadata: Json
          resolved_at: string | null
          resolved_by: string | null
          severity: Database["public"]["Enums"]["alert_severity"]
          source: string
          title: string
        }
        Insert: {
          created_at?: string
          id?: string
          is_resolved?: boolean
          message?: string
          metadata?: Json
          resolved_at?: string | null
          resolved_by?: string | null
          severity: Database["public"]["Enums"]["alert_severity"]
          source?: string
          title: string
        }
        Update: {
          created_at?: string
          id?: string
          is_resolved?: boolean
          message?: string
          metadata?: Json
          resolved_at?: string | null
          resolved_by?: string | null
          severity?: Database["public"]["Enums"]["alert_severity"]
          source?: string
          title?: string
        }
        Relationships: []
      }
      ai_allowance: {
        Row: {
          address_daily_generations: number
          id: boolean
          monthly_stars: number | null
          updated_at: string
          visitor_daily_generations: number
        }
        Insert: {
          address_daily_generations?: number
          id?: boolean
          monthly_stars?: number | null
          updated_at?: string
          visitor_daily_generations?: number
        }
        Update: {
          address_daily_generations?: number
          id?: boolean
          monthly_stars?: number | null
          updated_at?: string
          visitor_daily_generations?: number
        }
        Relationships: []
      }
      ai_usage_ledger: {
        Row: {
          completion_tokens: number
          created_at: string
          feature: string
          id: number
          model: string | null
          plan_id: string | null
          prompt_tokens: number
          request_id: string
          stars_charged: number
          stars_cost: number | null
          total_tokens: number | null
          user_id: string
        }
        Insert: {
          completion_tokens: number
          created_at?: string
          feature: string
          id?: never
          model?: string | null
          plan_id?: string | null
          prompt_tokens: number
          request_id: string
          stars_charged: number
          stars_cost?: number | null
          total_tokens?: number | null
          user_id: string
        }
        Update: {
          completion_tokens?: number
          created_at?: string
          feature?: string
          id?: never
          model?: string | null
          plan_id?: string | null
          prompt_tokens?: number
          request_id?: string
          stars_charged?: number
          stars_cost?: number | null
          total_tokens?: number | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ai_usage_ledger_plan_id_fkey"
            columns: ["plan_id"]
            isOneToOne: false
            referencedRelation: "plans"
            referencedColumns: ["id"]
          },
        ]
      }
      announcement_reads: {
        Row: {
          announcement_id: string
          read_at: string
          user_id: string
        }
        Insert: {
          announcement_id: string
          read_at?: string
          user_id?: string
        }
        Update: {
          announcement_id?: string
          read_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "announcement_reads_announcement_id_fkey"
            columns: ["announcement_id"]
            isOneToOne: false
            referencedRelation: "announcements"
            referencedColumns: ["id"]
          },
        ]
      }
      announcements: {
        Row: {
          audience: Database["public"]["Enums"]["announcement_audience"]
          body: string
          created_at: string
          created_by: string | null
          expires_at: string | null
          id: string
          is_pinned: boolean
          published_at: string | null
          title: string
          updated_at: string
        }
        Insert: {
          audience?: Database["public"]["Enums"]["announcement_audience"]
          body?: string
          created_at?: string
          created_by?: string | null
          expires_at?: string | null
          id?: string
          is_pinned?: boolean
          published_at?: string | null
          title: string
          updated_at?: string
        }
        Update: {
          audience?: Database["public"]["Enums"]["announcement_audience"]
          body?: string
          created_at?: string
          created_by?: string | null
          expires_at?: string | null
          id?: string
          is_pinned?: boolean
          published_at?: string | null
          title?: string
          updated_at?: string
        }
        Relationships: []
      }
      class_sessions: {
        Row: {
          cancellation_reason: string | null
          course_id: string
          created_at: string
          end_time: string | null
          id: string
          notes: string | null
          pedagogical_hours: number
          schedule_block_id: string | null
          session_date: string
          start_time: string
          status: Database["public"]["Enums"]["class_status"]
          status_changed_at: string
          teacher_id: string
          updated_at: string
        }
        Insert: {
          cancellation_reason?: string | null
          course_id: string
          created_at?: string
          end_time?: string | null
          id?: string
          notes?: string | null
          pedagogical_hours: number
          schedule_block_id?: string | null
          session_date: string
          start_time: string
          status?: Database["public"]["Enums"]["class_status"]
          status_changed_at?: string
          teacher_id?: string
          updated_at?: string
        }
        Update: {
          cancellation_reason?: string | null
          course_id?: string
          created_at?: string
          end_time?: string | null
          id?: string
          notes?: string | null
          pedagogical_hours?: number
          schedule_block_id?: string | null
          session_date?: string
          start_time?: string
          status?: Database["public"]["Enums"]["class_status"]
          status_changed_at?: string
          teacher_id?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "class_sessions_course_fkey"
            columns: ["course_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id", "teacher_id"]
          },
          {
            foreignKeyName: "class_sessions_schedule_block_id_fkey"
            columns: ["schedule_block_id"]
            isOneToOne: false
            referencedRelation: "schedule_blocks"
            referencedColumns: ["id"]
          },
        ]
      }
      content_creator_resources: {
        Row: {
          content: Json
          content_length: number | null
          created_at: string
          created_by: string | null
          description: string
          id: string
          kind: Database["public"]["Enums"]["resource_kind"]
          level_code: string | null
          published_at: string | null
          status: Database["public"]["Enums"]["resource_status"]
          storage_path: string | null
          subject_code: string | null
          title: string
          updated_at: string
        }
        Insert: {
          content?: Json
          content_length?: number | null
          created_at?: string
          created_by?: string | null
          description?: string
          id?: string
          kind: Database["public"]["Enums"]["resource_kind"]
          level_code?: string | null
          published_at?: string | null
          status?: Database["public"]["Enums"]["resource_status"]
          storage_path?: string | null
          subject_code?: string | null
          title: string
          updated_at?: string
        }
        Update: {
          content?: Json
          content_length?: number | null
          created_at?: string
          created_by?: string | null
          description?: string
          id?: string
          kind?: Database["public"]["Enums"]["resource_kind"]
          level_code?: string | null
          published_at?: string | null
          status?: Database["public"]["Enums"]["resource_status"]
          storage_path?: string | null
          subject_code?: string | null
          title?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "content_creator_resources_level_code_fkey"
            columns: ["level_code"]
            isOneToOne: false
            referencedRelation: "levels"
            referencedColumns: ["code"]
          },
          {
            foreignKeyName: "content_creator_resources_subject_code_fkey"
            columns: ["subject_code"]
            isOneToOne: false
            referencedRelation: "subjects"
            referencedColumns: ["code"]
          },
        ]
      }
      courses: {
        Row: {
          academic_year: number
          color: string
          created_at: string
          id: string
          letter: string
          level_code: string
          school_rbd: number | null
          students_count: number | null
          subject_code: string
          teacher_id: string
          updated_at: string
        }
        Insert: {
          academic_year?: number
          color?: string
          created_at?: string
          id?: string
          letter: string
          level_code: string
          school_rbd?: number | null
          students_count?: number | null
          subject_code: string
          teacher_id?: string
          updated_at?: string
        }
        Update: {
          academic_year?: number
          color?: string
          created_at?: string
          id?: string
          letter?: string
          level_code?: string
          school_rbd?: number | null
          students_count?: number | null
          subject_code?: string
          teacher_id?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "courses_level_subject_fkey"
            columns: ["level_code", "subject_code"]
            isOneToOne: false
            referencedRelation: "level_subjects"
            referencedColumns: ["level_code", "subject_code"]
          },
          {
            foreignKeyName: "courses_school_rbd_fkey"
            columns: ["school_rbd"]
            isOneToOne: false
            referencedRelation: "schools"
            referencedColumns: ["RBD"]
          },
        ]
      }
      demo_users_2025: {
        Row: {
          created_at: string
          demo_end_date: string
          is_active: boolean
          max_courses: number
          total_stars: number
          updated_at: string
          used_stars: number
          user_id: string
        }
        Insert: {
          created_at?: string
          demo_end_date: string
          is_active?: boolean
          max_courses?: number
          total_stars?: number
          updated_at?: string
          used_stars?: number
          user_id: string
        }
        Update: {
          created_at?: string
          demo_end_date?: string
          is_active?: boolean
          max_courses?: number
          total_stars?: number
          updated_at?: string
          used_stars?: number
          user_id?: string
        }
        Relationships: []
      }
      drafts: {
        Row: {
          content: Json
          content_length: number | null
          course_id: string | null
          created_at: string
          id: string
          teacher_id: string
          title: string
          updated_at: string
          version: number
        }
        Insert: {
          content?: Json
          content_length?: number | null
          course_id?: string | null
          created_at?: string
          id?: string
          teacher_id?: string
          title?: string
          updated_at?: string
          version?: number
        }
        Update: {
          content?: Json
          content_length?: number | null
          course_id?: string | null
          created_at?: string
          id?: string
          teacher_id?: string
          title?: string
          updated_at?: string
          version?: number
        }
        Relationships: [
          {
            foreignKeyName: "drafts_course_fkey"
            columns: ["course_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id", "teacher_id"]
          },
        ]
      }
      holidays: {
        Row: {
          comunas: string[]
          holiday_date: string
          is_irrenunciable: boolean
          name: string
          note: string
          region_code: number | null
          scope: Database["public"]["Enums"]["holiday_scope"]
        }
        Insert: {
          comunas?: string[]
          holiday_date: string
          is_irrenunciable?: boolean
          name: string
          note?: string
          region_code?: number | null
          scope: Database["public"]["Enums"]["holiday_scope"]
        }
        Update: {
          comunas?: string[]
          holiday_date?: string
          is_irrenunciable?: boolean
          name?: string
          note?: string
          region_code?: number | null
          scope?: Database["public"]["Enums"]["holiday_scope"]
        }
        Relationships: [
          {
            foreignKeyName: "holidays_region_code_fkey"
            columns: ["region_code"]
            isOneToOne: false
            referencedRelation: "regions"
            referencedColumns: ["code"]
          },
        ]
      }
      learning_objective_indicators: {
        Row: {
          created_at: string
          created_by: string | null
          id: string
          objective_id: string
          position: number
          text: string
          updated_at: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          id?: string
          objective_id: string
          position: number
          text: string
          updated_at?: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          id?: string
          objective_id?: string
          position?: number
          text?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "learning_objective_indicators_objective_id_fkey"
            columns: ["objective_id"]
            isOneToOne: false
            referencedRelation: "learning_objectives"
            referencedColumns: ["id"]
          },
        ]
      }
      learning_objectives: {
        Row: {
          code: string
          eje: string | null
          full_text: string
          id: string
          items: string[]
          kind: Database["public"]["Enums"]["objective_kind"]
          level_code: string
          plan: Database["public"]["Enums"]["curriculum_plan"]
          position: number
          statement: string
          subject_code: string
        }
        Insert: {
          code: string
          eje?: string | null
          full_text: string
          id: string
          items?: string[]
          kind: Database["public"]["Enums"]["objective_kind"]
          level_code: string
          plan: Database["public"]["Enums"]["curriculum_plan"]
          position: number
          statement: string
          subject_code: string
        }
        Update: {
          code?: string
          eje?: string | null
          full_text?: string
          id?: string
          items?: string[]
          kind?: Database["public"]["Enums"]["objective_kind"]
          level_code?: string
          plan?: Database["public"]["Enums"]["curriculum_plan"]
          position?: number
          statement?: string
          subject_code?: string
        }
        Relationships: [
          {
            foreignKeyName: "learning_objectives_level_subject_fkey"
            columns: ["level_code", "subject_code"]
            isOneToOne: false
            referencedRelation: "level_subjects"
            referencedColumns: ["level_code", "subject_code"]
          },
        ]
      }
      level_subjects: {
        Row: {
          level_code: string
          plan: Database["public"]["Enums"]["curriculum_plan"]
          subject_code: string
        }
        Insert: {
          level_code: string
          plan: Database["public"]["Enums"]["curriculum_plan"]
          subject_code: string
        }
        Update: {
          level_code?: string
          plan?: Database["public"]["Enums"]["curriculum_plan"]
          subject_code?: string
        }
        Relationships: [
          {
            foreignKeyName: "level_subjects_level_code_fkey"
            columns: ["level_code"]
            isOneToOne: false
            referencedRelation: "levels"
            referencedColumns: ["code"]
          },
          {
            foreignKeyName: "level_subjects_subject_code_fkey"
            columns: ["subject_code"]
            isOneToOne: false
            referencedRelation: "subjects"
            referencedColumns: ["code"]
          },
        ]
      }
      levels: {
        Row: {
          code: string
          cycle: string
          grade: number
          name: string
        }
        Insert: {
          code: string
          cycle: string
          grade: number
          name: string
        }
        Update: {
          code?: string
          cycle?: string
          grade?: number
          name?: string
        }
        Relationships: []
      }
      plan_classes: {
        Row: {
          class_session_id: string | null
          content_format: string
          created_at: string
          id: string
          legacy_content: Json | null
          legacy_migrated_at: string | null
          legacy_migration: string | null
          plan_id: string
          position: number
          teacher_id: string
          title: string | null
          updated_at: string
        }
        Insert: {
          class_session_id?: string | null
          content_format?: string
          created_at?: string
          id?: string
          legacy_content?: Json | null
          legacy_migrated_at?: string | null
          legacy_migration?: string | null
          plan_id: string
          position: number
          teacher_id: string
          title?: string | null
          updated_at?: string
        }
        Update: {
          class_session_id?: string | null
          content_format?: string
          created_at?: string
          id?: string
          legacy_content?: Json | null
          legacy_migrated_at?: string | null
          legacy_migration?: string | null
          plan_id?: string
          position?: number
          teacher_id?: string
          title?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "plan_classes_plan_fkey"
            columns: ["plan_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "plans"
            referencedColumns: ["id", "teacher_id"]
          },
          {
            foreignKeyName: "plan_classes_session_fkey"
            columns: ["class_session_id"]
            isOneToOne: true
            referencedRelation: "class_sessions"
            referencedColumns: ["id"]
          },
        ]
      }
      plan_learning_objectives: {
        Row: {
          objective_id: string
          plan_id: string
          teacher_id: string
        }
        Insert: {
          objective_id: string
          plan_id: string
          teacher_id?: string
        }
        Update: {
          objective_id?: string
          plan_id?: string
          teacher_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "plan_learning_objectives_objective_id_fkey"
            columns: ["objective_id"]
            isOneToOne: false
            referencedRelation: "learning_objectives"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "plan_learning_objectives_plan_fkey"
            columns: ["plan_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "plans"
            referencedColumns: ["id", "teacher_id"]
          },
        ]
      }
      plan_zones: {
        Row: {
          content: Json
          content_length: number | null
          created_at: string
          id: string
          plan_class_id: string
          position: number
          teacher_id: string
          title: string | null
          updated_at: string
          version: number
          zone_type: Database["public"]["Enums"]["zone_type"]
        }
        Insert: {
          content?: Json
          content_length?: number | null
          created_at?: string
          id?: string
          plan_class_id: string
          position: number
          teacher_id?: string
          title?: string | null
          updated_at?: string
          version?: number
          zone_type: Database["public"]["Enums"]["zone_type"]
        }
        Update: {
          content?: Json
          content_length?: number | null
          created_at?: string
          id?: string
          plan_class_id?: string
          position?: number
          teacher_id?: string
          title?: string | null
          updated_at?: string
          version?: number
          zone_type?: Database["public"]["Enums"]["zone_type"]
        }
        Relationships: [
          {
            foreignKeyName: "plan_zones_class_fkey"
            columns: ["plan_class_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "plan_classes"
            referencedColumns: ["id", "teacher_id"]
          },
        ]
      }
      plans: {
        Row: {
          class_blocks: number
          class_count: number
          course_id: string
          created_at: string
          id: string
          kind: Database["public"]["Enums"]["plan_kind"]
          teacher_id: string
          title: string
          unit_name: string | null
          updated_at: string
        }
        Insert: {
          class_blocks?: number
          class_count?: number
          course_id: string
          created_at?: string
          id?: string
          kind?: Database["public"]["Enums"]["plan_kind"]
          teacher_id?: string
          title: string
          unit_name?: string | null
          updated_at?: string
        }
        Update: {
          class_blocks?: number
          class_count?: number
          course_id?: string
          created_at?: string
          id?: string
          kind?: Database["public"]["Enums"]["plan_kind"]
          teacher_id?: string
          title?: string
          unit_name?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "plans_course_fkey"
            columns: ["course_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id", "teacher_id"]
          },
        ]
      }
      profiles: {
        Row: {
          created_at: string
          encrypted_phone: string | null
          first_name: string | null
          how_found_us: string | null
          is_complete: boolean | null
          last_name: string | null
          school_rbd: number | null
          updated_at: string
          user_id: string
        }
        Insert: {
          created_at?: string
          encrypted_phone?: string | null
          first_name?: string | null
          how_found_us?: string | null
          is_complete?: boolean | null
          last_name?: string | null
          school_rbd?: number | null
          updated_at?: string
          user_id?: string
        }
        Update: {
          created_at?: string
          encrypted_phone?: string | null
          first_name?: string | null
          how_found_us?: string | null
          is_complete?: boolean | null
          last_name?: string | null
          school_rbd?: number | null
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "profiles_school_rbd_fkey"
            columns: ["school_rbd"]
            isOneToOne: false
            referencedRelation: "schools"
            referencedColumns: ["RBD"]
          },
        ]
      }
      regions: {
        Row: {
          code: number
          name: string
          roman_numeral: string
        }
        Insert: {
          code: number
          name: string
          roman_numeral: string
        }
        Update: {
          code?: number
          name?: string
          roman_numeral?: string
        }
        Relationships: []
      }
      resource_learning_objectives: {
        Row: {
          objective_id: string
          resource_id: string
        }
        Insert: {
          objective_id: string
          resource_id: string
        }
        Update: {
          objective_id?: string
          resource_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "resource_learning_objectives_objective_id_fkey"
            columns: ["objective_id"]
            isOneToOne: false
            referencedRelation: "learning_objectives"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "resource_learning_objectives_resource_id_fkey"
            columns: ["resource_id"]
            isOneToOne: false
            referencedRelation: "content_creator_resources"
            referencedColumns: ["id"]
          },
        ]
      }
      schedule_blocks: {
        Row: {
          course_id: string
          created_at: string
          end_time: string | null
          id: string
          pedagogical_hours: number
          room: string | null
          start_time: string
          teacher_id: string
          updated_at: string
          weekday: number
        }
        Insert: {
          course_id: string
          created_at?: string
          end_time?: string | null
          id?: string
          pedagogical_hours: number
          room?: string | null
          start_time: string
          teacher_id?: string
          updated_at?: string
          weekday: number
        }
        Update: {
          course_id?: string
          created_at?: string
          end_time?: string | null
          id?: string
          pedagogical_hours?: number
          room?: string | null
          start_time?: string
          teacher_id?: string
          updated_at?: string
          weekday?: number
        }
        Relationships: [
          {
            foreignKeyName: "schedule_blocks_course_fkey"
            columns: ["course_id", "teacher_id"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id", "teacher_id"]
          },
        ]
      }
      school_calendars: {
        Row: {
          academic_year: number
          classes_end_jec: string
          classes_end_without_jec: string
          confidence: string
          note: string
          region_code: number
          school_year_start: string
          students_start: string
          winter_break_end: string
          winter_break_start: string
        }
        Insert: {
          academic_year: number
          classes_end_jec: string
          classes_end_without_jec: string
          confidence: string
          note?: string
          region_code: number
          school_year_start: string
          students_start: string
          winter_break_end: string
          winter_break_start: string
        }
        Update: {
          academic_year?: number
          classes_end_jec?: string
          classes_end_without_jec?: string
          confidence?: string
          note?: string
          region_code?: number
          school_year_start?: string
          students_start?: string
          winter_break_end?: string
          winter_break_start?: string
        }
        Relationships: [
          {
            foreignKeyName: "school_calendars_region_code_fkey"
            columns: ["region_code"]
            isOneToOne: false
            referencedRelation: "regions"
            referencedColumns: ["code"]
          },
        ]
      }
      school_days: {
        Row: {
          breaks: Json
          day_start: string
          pedagogical_hours: number
          teacher_id: string
          updated_at: string
        }
        Insert: {
          breaks?: Json
          day_start?: string
          pedagogical_hours?: number
          teacher_id?: string
          updated_at?: string
        }
        Update: {
          breaks?: Json
          day_start?: string
          pedagogical_hours?: number
          teacher_id?: string
          updated_at?: string
        }
        Relationships: []
      }
      school_events: {
        Row: {
          course_id: string | null
          created_at: string
          created_by: string
          description: string | null
          end_time: string | null
          ends_on: string
          id: string
          kind: Database["public"]["Enums"]["school_event_kind"]
          school_rbd: number | null
          start_time: string | null
          starts_on: string
          suspends_classes: boolean
          title: string
          updated_at: string
        }
        Insert: {
          course_id?: string | null
          created_at?: string
          created_by?: string
          description?: string | null
          end_time?: string | null
          ends_on: string
          id?: string
          kind?: Database["public"]["Enums"]["school_event_kind"]
          school_rbd?: number | null
          start_time?: string | null
          starts_on: string
          suspends_classes?: boolean
          title: string
          updated_at?: string
        }
        Update: {
          course_id?: string | null
          created_at?: string
          created_by?: string
          description?: string | null
          end_time?: string | null
          ends_on?: string
          id?: string
          kind?: Database["public"]["Enums"]["school_event_kind"]
          school_rbd?: number | null
          start_time?: string | null
          starts_on?: string
          suspends_classes?: boolean
          title?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "school_events_course_fkey"
            columns: ["course_id", "created_by"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id", "teacher_id"]
          },
          {
            foreignKeyName: "school_events_school_rbd_fkey"
            columns: ["school_rbd"]
            isOneToOne: false
            referencedRelation: "schools"
            referencedColumns: ["RBD"]
          },
        ]
      }
      schools: {
        Row: {
          NOM_RBD: string
          RBD: number
          comuna: string
          comuna_code: number
          dependencia: string
          dgv_rbd: string
          estado: string
          latitude: number | null
          longitude: number | null
          provincia: string
          provincia_code: number
          region_code: number
        }
        Insert: {
          NOM_RBD: string
          RBD: number
          comuna: string
          comuna_code: number
          dependencia: string
          dgv_rbd: string
          estado: string
          latitude?: number | null
          longitude?: number | null
          provincia: string
          provincia_code: number
          region_code: number
        }
        Update: {
          NOM_RBD?: string
          RBD?: number
          comuna?: string
          comuna_code?: number
          dependencia?: string
          dgv_rbd?: string
          estado?: string
          latitude?: number | null
          longitude?: number | null
          provincia?: string
          provincia_code?: number
          region_code?: number
        }
        Relationships: [
          {
            foreignKeyName: "schools_region_code_fkey"
            columns: ["region_code"]
            isOneToOne: false
            referencedRelation: "regions"
            referencedColumns: ["code"]
          },
        ]
      }
      security_audit_log: {
        Row: {
          action: string
          created_at: string
          id: number
          new_values: Json | null
          resource_id: string | null
          resource_type: string
          user_agent: string | null
          user_id: string | null
        }
        Insert: {
          action: string
          created_at?: string
          id?: never
          new_values?: Json | null
          resource_id?: string | null
          resource_type?: string
          user_agent?: string | null
          user_id?: string | null
        }
        Update: {
          action?: string
          created_at?: string
          id?: never
          new_values?: Json | null
          resource_id?: string | null
          resource_type?: string
          user_agent?: string | null
          user_id?: string | null
        }
        Relationships: []
      }
      subjects: {
        Row: {
          code: string
          name: string
        }
        Insert: {
          code: string
          name: string
        }
        Update: {
          code?: string
          name?: string
        }
        Relationships: []
      }
      user_roles: {
        Row: {
          granted_at: string
          granted_by: string | null
          role: Database["public"]["Enums"]["app_role"]
          school_rbd: number | null
          user_id: string
        }
        Insert: {
          granted_at?: string
          granted_by?: string | null
          role: Database["public"]["Enums"]["app_role"]
          school_rbd?: number | null
          user_id: string
        }
        Update: {
          granted_at?: string
          granted_by?: string | null
          role?: Database["public"]["Enums"]["app_role"]
          school_rbd?: number | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_roles_school_rbd_fkey"
            columns: ["school_rbd"]
            isOneToOne: false
            referencedRelation: "schools"
            referencedColumns: ["RBD"]
          },
        ]
      }
    }
    Views: {
      ai_allowance_status: {
        Row: {
          month: string | null
          monthly_stars: number | null
          remaining_stars: number | null
          used_stars: number | null
          user_id: string | null
        }
        Relationships: []
      }
      demo_stars: {
        Row: {
          demo_end_date: string | null
          is_active: boolean | null
          is_demo_user: boolean | null
          is_expired: boolean | null
          max_courses: number | null
          remaining_stars: number | null
          total_stars: number | null
          usage_percentage: number | null
          used_stars: number | null
          user_id: string | null
        }
        Relationships: []
      }
    }
    Functions: {
      admin_users: {
        Args: {
          search?: string
          max_rows?: number
        }
        Returns: {
          user_id: string
          email: string
          first_name: string
          last_name: string
          school_rbd: number
          school_name: string
          created_at: string
          last_sign_in_at: string
          roles: Database["public"]["Enums"]["app_role"][]
          directivo_rbd: number
          course_count: number
          demo_total_stars: number
          demo_used_stars: number
          demo_end_date: string
          demo_max_courses: number
          demo_is_active: boolean
        }[]
      }
      apply_unit_generation: {
        Args: {
          plan_id: string
          classes: Json
        }
        Returns: number
      }
      create_sequential_plan: {
        Args: {
          course_id: string
          title: string
          class_count: number
          objective_ids?: string[]
          class_session_ids?: string[]
          class_blocks?: number
          unit_name?: string
        }
        Returns: string
      }
      create_simple_plan: {
        Args: {
          course_id: string
          title: string
          objective_ids?: string[]
          class_session_id?: string
          class_blocks?: number
          class_date?: string
          class_start?: string
        }
        Returns: string
      }
      decrypt_phone: {
        Args: {
          encrypted_phone: string
        }
        Returns: string
      }
      is_admin: {
        Args: Record<PropertyKey, never>
        Returns: boolean
      }
      is_content_creator: {
        Args: Record<PropertyKey, never>
        Returns: boolean
      }
      is_directivo_of: {
        Args: {
          school_rbd: number
        }
        Returns: boolean
      }
      migrate_legacy_plan_class: {
        Args: {
          plan_class_id: string
        }
        Returns: string
      }
      promote_draft: {
        Args: {
          draft_id: string
          course_id: string
          objective_ids?: string[]
          class_session_id?: string
          class_blocks?: number
        }
        Returns: string
      }
      record_ai_usage: {
        Args: {
          user_id: string
          request_id: string
          feature: string
          prompt_tokens: number
          completion_tokens: number
          model?: string
          plan_id?: string
        }
        Returns: {
          completion_tokens: number
          created_at: string
          feature: string
          id: number
          model: string | null
          plan_id: string | null
          prompt_tokens: number
          request_id: string
          stars_charged: number
          stars_cost: number | null
          total_tokens: number | null
          user_id: string
        }
      }
      reorder_plan_zones: {
        Args: {
          plan_class_id: string
          zone_ids: string[]
        }
        Returns: undefined
      }
      save_resource: {
        Args: {
          resource_id: string
          title: string
          description: string
          kind: Database["public"]["Enums"]["resource_kind"]
          level_code: string
          subject_code: string
          content: Json
          status: Database["public"]["Enums"]["resource_status"]
          objective_ids?: string[]
        }
        Returns: string
      }
      schedule_classes: {
        Args: {
          from_date: string
          to_date: string
        }
        Returns: number
      }
      school_overview: {
        Args: {
          school_rbd: number
        }
        Returns: {
          course_id: string
          teacher_id: string
          teacher_name: string
          level_code: string
          letter: string
          subject_code: string
          students_count: number
          plan_count: number
          last_plan_at: string
          classes_total: number
          classes_done: number
          classes_cancelled: number
          classes_planned: number
        }[]
      }
      search_schools: {
        Args: {
          query: string
          max_rows?: number
        }
        Returns: {
          NOM_RBD: string
          RBD: number
          comuna: string
          comuna_code: number
          dependencia: string
          dgv_rbd: string
          estado: string
          latitude: number | null
          longitude: number | null
          provincia: string
          provincia_code: number
          region_code: number
        }[]
      }
      set_phone: {
        Args: {
          phone: string
        }
        Returns: undefined
      }
      set_plan_objectives: {
        Args: {
          plan_id: string
          objective_ids: string[]
        }
        Returns: number
      }
    }
    Enums: {
      alert_severity: "info" | "warning" | "error" | "critical"
      announcement_audience: "publico" | "docentes" | "demo" | "administradores"
      app_role: "admin" | "content_creator" | "directivo"
      class_status: "Programada" | "Realizada" | "Cancelada"
      curriculum_plan: "comun" | "FG" | "HC" | "TP"
      holiday_scope: "nacional" | "regional" | "comunal"
      objective_kind: "OA" | "OAH" | "OAA" | "OAT"
      plan_kind: "simple" | "secuencial"
      resource_kind:
        | "guia"
        | "actividad"
        | "evaluacion"
        | "rubrica"
        | "presentacion"
        | "lectura"
        | "video"
        | "otro"
      resource_status: "borrador" | "en_revision" | "publicado" | "archivado"
      school_event_kind:
        | "evaluacion"
        | "reunion"
        | "acto"
        | "jornada"
        | "salida_pedagogica"
        | "suspension"
        | "otro"
      zone_type:
        | "planificacion_base"
        | "objetivo"
        | "inicio"
        | "desarrollo"
        | "cierre"
        | "evaluacion"
        | "recursos"
        | "adecuaciones"
        | "notas"
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DefaultSchema = Database[Extract<keyof Database, "public">]

type SchemaName = keyof Database

type Readable<S extends SchemaName> = Database[S]["Tables"] & Database[S]["Views"]

type DefaultReadable = DefaultSchema["Tables"] & DefaultSchema["Views"]

export type Tables<
  NameOrSchema extends keyof DefaultReadable | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName }
    ? keyof Readable<NameOrSchema["schema"]>
    : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? Readable<NameOrSchema["schema"]>[Name] extends { Row: infer Row }
    ? Row
    : never
  : NameOrSchema extends keyof DefaultReadable
    ? DefaultReadable[NameOrSchema] extends { Row: infer Row }
      ? Row
      : never
    : never

export type TablesInsert<
  NameOrSchema extends keyof DefaultSchema["Tables"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName }
    ? keyof Database[NameOrSchema["schema"]]["Tables"]
    : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? Database[NameOrSchema["schema"]]["Tables"][Name] extends { Insert: infer Insert }
    ? Insert
    : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends { Insert: infer Insert }
      ? Insert
      : never
    : never

export type TablesUpdate<
  NameOrSchema extends keyof DefaultSchema["Tables"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName }
    ? keyof Database[NameOrSchema["schema"]]["Tables"]
    : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? Database[NameOrSchema["schema"]]["Tables"][Name] extends { Update: infer Update }
    ? Update
    : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends { Update: infer Update }
      ? Update
      : never
    : never

export type Enums<
  NameOrSchema extends keyof DefaultSchema["Enums"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName }
    ? keyof Database[NameOrSchema["schema"]]["Enums"]
    : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? Database[NameOrSchema["schema"]]["Enums"][Name]
  : NameOrSchema extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][NameOrSchema]
    : never

export type CompositeTypes<
  NameOrSchema extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName }
    ? keyof Database[NameOrSchema["schema"]]["CompositeTypes"]
    : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? Database[NameOrSchema["schema"]]["CompositeTypes"][Name]
  : NameOrSchema extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][NameOrSchema]
    : never

export const Constants = {
  public: {
    Enums: {
      alert_severity: ["info", "warning", "error", "critical"],
      announcement_audience: ["publico", "docentes", "demo", "administradores"],
      app_role: ["admin", "content_creator", "directivo"],
      class_status: ["Programada", "Realizada", "Cancelada"],
      curriculum_plan: ["comun", "FG", "HC", "TP"],
      holiday_scope: ["nacional", "regional", "comunal"],
      objective_kind: ["OA", "OAH", "OAA", "OAT"],
      plan_kind: ["simple", "secuencial"],
      resource_kind: [
        "guia",
        "actividad",
        "evaluacion",
        "rubrica",
        "presentacion",
        "lectura",
        "video",
        "otro",
      ],
      resource_status: ["borrador", "en_revision", "publicado", "archivado"],
      school_event_kind: [
        "evaluacion",
        "reunion",
        "acto",
        "jornada",
        "salida_pedagogica",
        "suspension",
        "otro",
      ],
      zone_type: [
        "planificacion_base",
        "objetivo",
        "inicio",
        "desarrollo",
        "cierre",
        "evaluacion",
        "recursos",
        "adecuaciones",
        "notas",
      ],
    },
  },
} as const
