/**
 * The settings page "智能体配置 / Agent profiles" (slot `settings.section`): the profile list beside the editor,
 * then import/export and diagnostics. Owns which profile is selected; data comes from the shared api store.
 */
import type { ReactNode } from 'react'
import { useApState } from './api.ts'
import { useT } from './locales.ts'

/** Owner props the settings shell passes to a section. */
export interface SettingsPageProps {
  close?: () => void
}

/** The page. Renders a placeholder on the first frame, while loading and on failure, never nothing. */
export function SettingsPage(_props: SettingsPageProps): ReactNode {
  const t = useT()
  const snap = useApState()
  if (snap.state === null) {
    return <div className="ap-root ap-settings"><div className="ap-placeholder">{t('page.loading')}</div></div>
  }
  return <div className="ap-root ap-settings"><h2>{t('page.title')}</h2></div>
}
