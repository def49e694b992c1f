import { describe, expect, it } from 'vitest';
import { matches, parseRobots, robotsAllow, ROBOTS_LIMITS } from '../../../plugins/discovery/robots.ts';

describe('robots.txt rules (RFC 9309) with bounded matching', () => {
  it('takes the group named for our product token, else *, merging groups of the same agent', () => {
    const text = 'User-agent: *\nDisallow: /\n\nUser-agent: fitroom\nDisallow: /private\n\nUser-agent: Other\nAllow: /\n\nUser-agent: FITROOM/2\nAllow: /private/open\nSitemap: https://shop.example/sitemap.xml\n';
    const r = parseRobots(text, 'Fitroom/1.2');
    expect(r.rules).toEqual([{ allow: false, pattern: '/private' }, { allow: true, pattern: '/private/open' }]);
    expect(r.sitemaps).toEqual(['https://shop.example/sitemap.xml']);
    expect(parseRobots('User-agent: *\nDisallow: /cart\n# comment\nDisallow:\n', 'Fitroom/1.2').rules).toEqual([{ allow: false, pattern: '/cart' }]);
  });

  it('lets the longest matching rule decide, allow on a tie; wildcards and the end anchor', () => {
    const { rules } = parseRobots('User-agent: *\nDisallow: /shop\nAllow: /shop/products\nDisallow: /*.pdf$\nDisallow: /*sort=\nAllow: /same\nDisallow: /same\n', 'Fitroom');
    expect(robotsAllow(rules, '/shop/cart')).toBe(false);
    expect(robotsAllow(rules, '/shop/products/runner')).toBe(true);
    expect(robotsAllow(rules, '/docs/a.pdf')).toBe(false);
    expect(robotsAllow(rules, '/docs/a.pdf?x=1')).toBe(true);
    expect(robotsAllow(rules, '/c/shoes?page=2&sort=price')).toBe(false);
    expect(robotsAllow(rules, '/same')).toBe(true);
    expect(robotsAllow(rules, '/robots.txt')).toBe(true);
    expect(matches('/a*b*c', '/axxbyyc')).toBe(true);
    expect(matches('/a*b*c$', '/axxbyycz')).toBe(false);
    expect(matches('/a*c$', '/ac')).toBe(true);
    expect(matches('/a**', '/a')).toBe(true);
    expect(matches('/x/ü', '/x/%C3%BC')).toBe(false); // patterns are encoded when parsed, not here
    expect(robotsAllow(parseRobots('User-agent: *\nDisallow: /x/ü\n', 'f').rules, '/x/%C3%BC')).toBe(false);
  });

  it('caps a hostile file: 512 KiB read, 1000 rules kept, long patterns dropped, and matching stays linear', () => {
    const rule = `Disallow: /${'a*'.repeat(400)}b\n`;
    const text = `User-agent: *\n${rule.repeat(2000)}Disallow: /${'c'.repeat(ROBOTS_LIMITS.maxPattern + 1)}\n`;
    expect(text.length).toBeGreaterThan(1.5e6);
    const r = parseRobots(text, 'Fitroom/1.2');
    expect(r.rules.length).toBeLessThanOrEqual(ROBOTS_LIMITS.maxRules);
    expect(r.rules.length).toBeGreaterThan(500);
    expect(r.rules.every((x) => x.pattern.length <= ROBOTS_LIMITS.maxPattern)).toBe(true);
    // a long path of the pattern's letters without the final b: backtracking matchers take |pattern| x |path| per rule
    const path = `/${'a'.repeat(2000)}`;
    expect(robotsAllow(r.rules, path)).toBe(true);
    expect(robotsAllow(r.rules, `${path}b`)).toBe(false);
  });
});
