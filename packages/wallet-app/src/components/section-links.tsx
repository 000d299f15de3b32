import type { Route } from '../router.ts';
import { navigate } from '../router.ts';

const SECTIONS: Array<{ href: string; label: string; screens: Array<Route['screen']> }> = [
  { href: '/', label: 'Wallet', screens: ['home', 'send', 'receive'] },
  { href: '/cards', label: 'Cards', screens: ['cards', 'card', 'send-card'] },
  { href: '/activity', label: 'Activity', screens: ['activity'] },
];

/** The member's sections, under the header; the current one is marked for screen readers too. */
export function SectionLinks(props: { current: Route['screen'] }) {
  return (
    <nav class="sections" aria-label="Sections">
      {SECTIONS.map((section) => (
        <a
          key={section.href}
          href={section.href}
          aria-current={section.screens.includes(props.current) ? 'page' : undefined}
          onClick={(event) => {
            event.preventDefault();
            navigate(section.href);
          }}
        >
          {section.label}
        </a>
      ))}
    </nav>
  );
}
