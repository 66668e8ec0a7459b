/**
 * The "add a memory" box of a memory list: the fact's text and, under it, its search keys (KeysField.tsx). Its text
 * is its own, so typing renders only the box; the text is a draft of the surface (kept across mounts in editing.ts,
 * where the surface looks before Escape or a close drops it). `onAdd` answers with the problem that refused the item,
 * or null; keys that break a rule keep the button disabled. It never saves.
 */
import { memo, useState, type ReactNode } from 'react'
import { joinKeys } from '../../shared/memory-keys.ts'
import { useT } from '../copy/locales.ts'
import { keepTyped, typedText } from './editing.ts'
import { KeysField, keysError } from './KeysField.tsx'

/** The box. */
export const AddBox = memo(function AddBox({
  surface,
  compact,
  onAdd,
}: {
  surface: string
  compact: boolean
  onAdd(text: string, keys: string): string | null
}): ReactNode {
  const t = useT()
  const [text, setTextState] = useState(() => typedText(surface) ?? '')
  const [keys, setKeys] = useState('')
  const setText = (next: string): void => {
    keepTyped(surface, next)
    setTextState(next)
  }
  const [problem, setProblem] = useState<string | null>(null)
  const add = (): void => {
    const refused = onAdd(text.trim(), joinKeys(keys))
    setProblem(refused)
    if (refused === null) {
      setText('')
      setKeys('')
    }
  }
  return (
    <div className="ap-field">
      <textarea
        className="ap-textarea"
        aria-label={t('memory.addPlaceholder')}
        placeholder={t('memory.addPlaceholder')}
        value={text}
        onChange={(e) => {
          setText(e.currentTarget.value)
          setProblem(null)
        }}
      />
      <KeysField value={keys} onChange={setKeys} />
      {problem !== null && (
        <div className="ap-error" role="alert">
          {problem}
        </div>
      )}
      <div className="ap-row">
        <button
          type="button"
          className={compact ? 'ap-btn ap-btn-small' : 'ap-btn'}
          disabled={text.trim() === '' || keysError(t, keys) !== null}
          onClick={add}
        >
          {t('memory.add')}
        </button>
      </div>
    </div>
  )
})
