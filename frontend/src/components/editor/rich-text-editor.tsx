/**
 * The rich-text editor of plan zones and drafts (TipTap on ProseMirror): headings, bold,
 * italic, underline, lists, links, tables and undo, storing the document JSON the database
 * holds (`{"type": "doc", …}`). Meant to be loaded on its own (`lazy`): it is the largest part
 * of the planner. The editor is given to the page through `onReady`, so generated text and
 * another tab's version can be put into it. A paste too long for one document is refused
 * with a message before the database would refuse it.
 */
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react'
import StarterKit from '@tiptap/starter-kit'
import { Table, TableCell, TableHeader, TableRow } from '@tiptap/extension-table'
import { Placeholder } from '@tiptap/extensions'
import { Bold, Heading2, Italic, Link2, List, ListOrdered, Redo2, Table2, Underline, Undo2 } from 'lucide-react'
import { useEffect, type ReactNode } from 'react'
import type { Json } from '@/lib/database.types'
import { cn } from '@/lib/cn'
import { notify } from '@/lib/notify'

/** The database refuses a zone over 256 KiB of JSON; a paste is checked against less. */
export const MAX_PASTE_CHARACTERS = 100_000

export interface RichTextEditorProps {
  initialContent: Json
  placeholder: string
  label: string
  onChange: (content: Json) => void
  onReady?: (editor: Editor) => void
  editable?: boolean
}

export default function RichTextEditor({ initialContent, placeholder, label, onChange, onReady, editable = true }: RichTextEditorProps) {
  const editor = useEditor({
    extensions: [
      StarterKit.configure({ heading: { levels: [2, 3] }, link: { openOnClick: false, autolink: true } }),
      Table.configure({ resizable: false }),
      TableRow,
      TableHeader,
      TableCell,
      Placeholder.configure({ placeholder, showOnlyCurrent: false }),
    ],
    content: initialContent as object,
    editable,
    immediatelyRender: true,
    shouldRerenderOnTransaction: false,
    editorProps: {
      attributes: { 'aria-label': label, class: 'zone-prose min-h-24 px-3 py-2 focus:outline-none', role: 'textbox', 'aria-multiline': 'true' },
      handlePaste: (_view, event) => {
        const pasted = event.clipboardData?.getData('text/html') || event.clipboardData?.getData('text/plain') || ''
        if (pasted.length <= MAX_PASTE_CHARACTERS) return false
        notify.warning('El texto pegado es demasiado largo', 'Pega por partes: cada zona o borrador admite hasta unas 30 páginas de texto.')
        return true
      },
    },
    onUpdate: ({ editor: current }) => onChange(current.getJSON() as Json),
  })

  useEffect(() => {
    if (editor && onReady) onReady(editor)
  }, [editor, onReady])
  useEffect(() => {
    if (editor && editor.isEditable !== editable) editor.setEditable(editable)
  }, [editor, editable])

  if (!editor) return null
  return (
    <div className="rounded-lg border border-line bg-surface focus-within:border-brand print:border-0">
      {editable ? <Toolbar editor={editor} /> : null}
      <EditorContent editor={editor} />
    </div>
  )
}

function Toolbar({ editor }: { editor: Editor }) {
  const button = (label: string, icon: ReactNode, action: () => void, active = false) => (
    <button
      type="button"
      aria-label={label}
      title={label}
      aria-pressed={active}
      onMouseDown={(event) => event.preventDefault()}
      onClick={action}
      className={cn('inline-flex size-8 items-center justify-center rounded text-ink-muted hover:bg-surface-muted hover:text-ink', active && 'bg-brand-soft text-brand-strong')}
    >
      {icon}
    </button>
  )
  const chain = () => editor.chain().focus()
  // Only the toolbar follows the selection; the editor itself never re-renders on typing.
  const active = useEditorState({
    editor,
    selector: ({ editor: current }) => ({
      bold: current.isActive('bold'),
      italic: current.isActive('italic'),
      underline: current.isActive('underline'),
      heading: current.isActive('heading'),
      bulletList: current.isActive('bulletList'),
      orderedList: current.isActive('orderedList'),
    }),
  })
  return (
    <div role="toolbar" aria-label="Formato" className="flex flex-wrap gap-0.5 border-b border-line px-1 py-1 print:hidden">
      {button('Negrita', <Bold className="size-4" />, () => chain().toggleBold().run(), active.bold)}
      {button('Cursiva', <Italic className="size-4" />, () => chain().toggleItalic().run(), active.italic)}
      {button('Subrayado', <Underline className="size-4" />, () => chain().toggleUnderline().run(), active.underline)}
      {button('Título', <Heading2 className="size-4" />, () => chain().toggleHeading({ level: 3 }).run(), active.heading)}
      {button('Lista', <List className="size-4" />, () => chain().toggleBulletList().run(), active.bulletList)}
      {button('Lista numerada', <ListOrdered className="size-4" />, () => chain().toggleOrderedList().run(), active.orderedList)}
      {button('Enlace', <Link2 className="size-4" />, () => {
        const current = editor.getAttributes('link').href as string | undefined
        const href = window.prompt('Dirección del enlace (deja vacío para quitarlo)', current ?? 'https://')
        if (href === null) return
        if (href.trim() === '') chain().unsetLink().run()
        else chain().extendMarkRange('link').setLink({ href: href.trim() }).run()
      })}
      {button('Tabla', <Table2 className="size-4" />, () => chain().insertTable({ rows: 3, cols: 3, withHeaderRow: true }).run())}
      {button('Deshacer', <Undo2 className="size-4" />, () => chain().undo().run())}
      {button('Rehacer', <Redo2 className="size-4" />, () => chain().redo().run())}
    </div>
  )
}
