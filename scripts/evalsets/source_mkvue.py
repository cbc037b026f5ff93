"""Source of mkvue.jsonl: held-out answer questions over ONE knowledge base made of two third-party markdown
corpora side by side under /work/evaldata/x:

- mkdocs-material/docs/**.md — the `docs/` folder of github.com/squidfunk/mkdocs-material at commit
  5b36f2ac499a45905e246bc66bbee2858ef6556f (MkDocs dialect: `!!! note "Title"` / `??? info` admonitions and
  `=== "Tab"` content tabs whose bodies are indented 4 spaces, config snippets in ``` yaml fences, nested tabs);
- vuedocs/src/**.md — the `src/` folder of github.com/vuejs/docs at commit
  01e098a967951ea92d09b100b8e7d82c7a3369a2 (VitePress dialect: `::: tip` / `:::warning` containers,
  `::: code-group`, `<div class="options-api">` / `<div class="composition-api">` toggles).

    python scripts/evalsets/source_mkvue.py [--corpus /work/evaldata/x]
    python scripts/evalsets/check_sets.py mkvue.jsonl --corpus /work/evaldata/x

36 questions: 28 answerable (14 per corpus; 8 of them asked in Chinese about the English docs, with English
must_contain phrases) and 8 unanswerable (2 in Chinese). Rows are split dev/test by _gold.split_of (seeded hash
of the id, stratified by lang and kind): the split does not depend on kb's output.

The questions, gold lines and must_contain were written by reading the corpus files only (grep/sed), before kb
was run on any of them; every must_contain item was copied from the gold lines. Alternative gold ranges were
added mechanically by grepping each must_contain phrase over both corpora (lines that answer just as plainly).

Unanswerable rows are near-topic questions the docs do not answer; checked absent with case-insensitive
`grep -ril --include='*.md'` over both corpora: vercel, password, docsearch (only vuedocs/src/about/privacy.md,
which says the Vue site itself uses Algolia DocSearch; mkdocs-material mentions Algolia only in a blog footnote
about Docusaurus), pdf (only base64 image noise in two Vue pages), 5173, "@vue/compat", "vue/compat",
"migration build", beforeEach, "navigation guard", "route guard", pwa (only base64 noise), "service worker",
service-worker, workbox. Hard negatives by design: publishing-your-site.md lists Cloudflare Pages / Fly.io /
Netlify / Scaleway but not Vercel; alternatives.md credits GitBook (not MkDocs) with authentication; the Vue FAQ
links the migration guide without describing @vue/compat; routing.md points to Vue Router's own docs; the
mkdocs offline plugin (not a Vue PWA) is the only "offline" content.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/evaldata/x")
M = "mkdocs-material/docs/"
V = "vuedocs/src/"

Q: list[tuple] = [
    # ================= Material for MkDocs (English questions) =================
    # ---------------- how do I (config line / command) ----------------
    ("en", "exact", "howto", "which feature flag keeps the top navigation tabs visible when I scroll down the page?",
     [(M + "setup/setting-up-navigation.md", "When sticky tabs are enabled, navigation tabs will lock below the header", "    - navigation.tabs.sticky")],
     ["navigation.tabs.sticky"]),
    ("en", "exact", "howto", "I enabled content.code.copy for the whole site, how do I turn the copy button off for just one code block?",
     [(M + "reference/code-blocks.md", "must also be prefixed by a `.`. Similarly, the copy button can also be", "use the `.text` language shortcode")],
     [".no-copy"]),
    ("en", "exact", "howto", "pip command to install mkdocs-material but stay on the 9.x major version so upgrades don't break my site",
     [(M + "getting-started.md", '=== "9.x"', "pip install mkdocs-material==\"9.*\"")],
     ['mkdocs-material=="9.*"']),
    ("en", "exact", "howto", "versioned docs with mike: what's the command to publish version 0.1 and move the latest alias to it?",
     [(M + "setup/setting-up-versioning.md", "If you want to publish a new version of your project documentation, choose a", "mike deploy --push --update-aliases 0.1 latest")],
     ["mike deploy --push --update-aliases 0.1 latest"]),
    ("en", "exact", "howto", "the social cards plugin needs Cairo — how do I install that on Windows?",
     [(M + "plugins/requirements/image-processing.md", '=== ":fontawesome-brands-windows: Windows"', "developers.")],
     ["pacman -S mingw-w64-ucrt-x86_64-cairo"]),
    # ---------------- lookups ----------------
    ("en", "exact", "lookup", "with the instant loading progress bar turned on, how long does a page have to be loading before the indicator appears?",
     [(M + "setup/setting-up-navigation.md", "The progress indicator will only show if the page hasn't finished loading after", "experience.")],
     ["400ms"]),
    ("en", "exact", "lookup", "What's the last version of Material for MkDocs that still worked in Internet Explorer?",
     [(M + "browser-support.md", "Internet Explorer__ - no support", "<!-- md:version 4.6.3 -->.")],
     ["4.6.3"]),
    # ---------------- comparison ----------------
    ("en", "relational", "comparison", "navigation.tabs vs navigation.sections — what's the difference in where top-level sections end up?",
     [(M + "setup/setting-up-navigation.md", "When tabs are enabled, top-level sections are rendered in a menu layer below", "the header for viewports above `1220px`"),
      (M + "setup/setting-up-navigation.md", "When sections are enabled, top-level sections are rendered as groups in the", "sidebar for viewports above `1220px`")],
     ["menu layer below the header", "rendered as groups in the sidebar"]),
    # ---------------- explain ----------------
    ("en", "conceptual", "explain", "Can I just run the official squidfunk/mkdocs-material Docker image to serve my docs in production?",
     [(M + "getting-started.md", "???+ warning", "security vulnerabilities.")],
     [["local previewing purposes only", "not suitable for deployment"]]),
    ("en", "conceptual", "explain", "I opened site/index.html straight from disk and the search doesn't work. Why, and how do I build a version that works offline?",
     [(M + "plugins/offline.md", "After [building your project], switch to the", "@squidfunk's [iframe-worker] shim."),
      (M + "plugins/offline.md", "As with all [built-in plugins], getting started with the offline plugin is", "  - offline"),
      (M + "setup/building-for-offline-usage.md", "The built-in offline plugin makes sure that the [site search] works", "  - offline"),
      (M + "setup/building-for-offline-usage.md", "Material for MkDocs offers many interactive features, some of which will not", "features that use the `fetch` API will error.")],
     [["Fetch API", "Cross origin", "restrictions"], "- offline"]),
    # ================= Material for MkDocs (Chinese questions) =================
    ("zh", "conceptual", "howto", "Material for MkDocs 怎么让网站跟随系统的深色/浅色模式自动切换配色？",
     [(M + "setup/changing-the-colors.md", "Each color palette can be linked to the user's system preference", "default color palette."),
      (M + "setup/changing-the-colors.md", "Newer operating systems allow to automatically switch between light and dark", "        name: Switch to system preference")],
     ["(prefers-color-scheme: dark)"]),
    ("zh", "exact", "lookup", "Material for MkDocs 不设置 primary 的话，默认的主色调是什么颜色？",
     [(M + "setup/changing-the-colors.md", "#### Primary color", "    primary: indigo")],
     ["indigo"]),
    ("zh", "exact", "howto", "想让某个页面在站内搜索结果里排得更靠前，页面的 front matter 里该怎么写？",
     [(M + "plugins/search.md", "Use this property to increase or decrease the relevance of a page in the search", "      boost: 0.5"),
      (M + "setup/setting-up-site-search.md", "Pages can be boosted in search with the front matter `search.boost` property,", "      boost: 0.5")],
     ["search:", "boost:"]),
    ("zh", "relational", "comparison", "MkDocs 里的可折叠提示框（admonition），默认收起和默认展开分别怎么写？",
     [(M + "reference/admonitions.md", "When [Details] is enabled and an admonition block is started with `???` instead", "    massa, nec semper lorem quam in massa."),
      (M + "reference/admonitions.md", "Adding a `+` after the `???` token renders the block expanded:", "    massa, nec semper lorem quam in massa.")],
     [["??? note", "`???`"], "???+"]),
    # ================= Vue docs (English questions) =================
    # ---------------- comparisons ----------------
    ("en", "relational", "comparison", "v-if or v-show for a panel I toggle all the time? what's the real difference between them",
     [(V + "guide/essentials/conditional.md", "`v-if` is \"real\" conditional rendering", "Generally speaking, `v-if` has higher toggle costs"),
      (V + "guide/essentials/conditional.md", "In comparison, `v-show` is much simpler", "Generally speaking, `v-if` has higher toggle costs"),
      (V + "guide/essentials/conditional.md", "Another option for conditionally displaying an element is the `v-show` directive", "The difference is that an element with `v-show` will always be rendered")],
     [["higher toggle costs", "destroyed and re-created"], ["higher initial render costs", "CSS-based toggling"]]),
    ("en", "relational", "comparison", "watch vs watchEffect: how does each one decide which reactive state it tracks?",
     [(V + "guide/essentials/watchers.md", "- `watch` only tracks the explicitly watched source."),
      (V + "guide/essentials/watchers.md", "- `watchEffect`, on the other hand, combines dependency tracking and side effect")],
     ["explicitly watched source", ["automatically tracks every reactive property", "combines dependency tracking and side effect"]]),
    # ---------------- how do I ----------------
    ("en", "exact", "howto", "how do I make a watch() callback also fire right away when the component is created, not only after the source changes?",
     [(V + "guide/essentials/watchers.md", "We can force a watcher's callback to be executed immediately by passing the `immediate: true` option:", "  { immediate: true }"),
      (V + "guide/essentials/watchers.md", "We can force a watcher's callback to be executed immediately by declaring it", "      immediate: true"),
      (V + "api/options-state.md", "// the callback will be called immediately after the start of the observation", "        immediate: true")],
     ["immediate: true"]),
    ("en", "exact", "howto", "How can I try out the upcoming Vue beta release in my project?",
     [(V + "about/releases.md", "You can install the latest pre-releases from npm using `npx install-vue@alpha`")],
     ["npx install-vue@beta"]),
    ("en", "exact", "howto", "I'm on Vite — how do I get detailed hydration mismatch warnings in a production build?",
     [(V + "api/compile-time-flags.md", "## `__VUE_PROD_HYDRATION_MISMATCH_DETAILS__`", "- Only available in 3.4+"),
      (V + "api/compile-time-flags.md", "`@vitejs/plugin-vue` automatically provides default values for these flags.", "})")],
     ["define", "__VUE_PROD_HYDRATION_MISMATCH_DETAILS__"]),
    ("en", "exact", "howto", "my <style scoped> rules don't apply to the HTML I render with v-html — how can I style it?",
     [(V + "api/sfc-css-features.md", "DOM content created with `v-html` are not affected by scoped styles"),
      (V + "api/sfc-css-features.md", "If you want a selector in `scoped` styles to be \"deep\"", "</style>")],
     [":deep("]),
    ("en", "exact", "howto", "Teleport target is a div rendered later by my own component and Vue says it can't find it. how do I fix that?",
     [(V + "guide/built-ins/teleport.md", "## Deferred Teleport", "The defer works similarly to the `mounted` lifecycle hook."),
      (V + "api/built-in-components.md", "Defer target resolution", "<Teleport defer to=\"#late-div\">")],
     [["<Teleport defer", "`defer` prop", "defer prop"]]),
    # ---------------- lookup ----------------
    ("en", "exact", "lookup", "Which Node.js version do I need before running npm create vue@latest?",
     [(V + "guide/quick-start.md", ":::tip Prerequisites", "- Install [Node.js](https://nodejs.org/) version")],
     ["22.18.0", "24.12.0"]),
    # ---------------- explain ----------------
    ("en", "conceptual", "explain", "If I give KeepAlive a max and the cache is full, which cached component gets thrown away?",
     [(V + "guide/built-ins/keep-alive.md", "## Max Cached Instances", "<KeepAlive :max=\"10\">")],
     [["least recently accessed", "LRU"]]),
    ("en", "conceptual", "explain", "my watchEffect has an async callback and doesn't re-run when some refs change — why?",
     [(V + "guide/essentials/watchers.md", "`watchEffect` only tracks dependencies during its **synchronous** execution.")],
     [["before the first `await`", "before the first await"]]),
    # ================= Vue docs (Chinese questions) =================
    ("zh", "exact", "howto", "Vue 3 里怎么在整个应用级别 provide 一个值，让所有组件都能 inject 到？",
     [(V + "guide/components/provide-inject.md", "## App-level Provide", "App-level provides are available to all components rendered in the app."),
      (V + "api/application.md", "## app.provide()", "  app.provide('message', 'hello')")],
     ["app.provide("]),
    ("zh", "exact", "howto", "用 <script setup> 写的子组件，怎么让它支持父组件上的 v-model 双向绑定？",
     [(V + "guide/components/v-model.md", "Starting in Vue 3.4, the recommended approach to achieve this is using the", "const model = defineModel()"),
      (V + "api/sfc-script-setup.md", "## defineModel()", "const model = defineModel()")],
     ["defineModel()"]),
    ("zh", "relational", "comparison", "computed 计算属性和在模板里直接调用 methods 里的方法，有什么区别？",
     [(V + "guide/essentials/computed.md", "Instead of a computed property, we can define the same function as a method."),
      (V + "guide/essentials/computed.md", "In comparison, a method invocation will **always** run the function")],
     ["cached based on their reactive dependencies", "whenever a re-render happens"]),
    ("zh", "exact", "lookup", "Vue 的 Reactivity Transform（$ref 那种语法糖）现在还能用吗？",
     [(V + "guide/extras/reactivity-transform.md", ":::danger Removed Experimental Feature", "If you still intend to use it, it is now available via the"),
      (V + "guide/extras/reactivity-transform.md", ":::danger No longer supported in core", "please migrate to [Vue Macros]")],
     ["removed in the latest 3.4 release", "Vue Macros"]),
    # ================= unanswerable (plausible; neither corpus answers them) =================
    ("en", "conceptual", "unanswerable", "How do I deploy a Material for MkDocs site to Vercel?", [], []),
    ("en", "conceptual", "unanswerable", "How can I password-protect my Material for MkDocs docs so only logged-in users can read them?", [], []),
    ("en", "exact", "unanswerable", "Can I swap Material for MkDocs' built-in search for Algolia DocSearch? What goes in mkdocs.yml?", [], []),
    ("zh", "conceptual", "unanswerable", "怎么把 Material for MkDocs 的整个文档站导出成一个 PDF 文件？", [], []),
    ("en", "exact", "unanswerable", "What port does the dev server of a create-vue project listen on by default?", [], []),
    ("en", "conceptual", "unanswerable", "How do I set up the @vue/compat migration build to move a Vue 2 app to Vue 3 step by step?", [], []),
    ("en", "conceptual", "unanswerable", "How do I write a Vue Router navigation guard that redirects to /login when the user isn't authenticated?", [], []),
    ("zh", "conceptual", "unanswerable", "Vue 项目怎么做成 PWA，用 service worker 实现离线缓存？", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "mv", Q, HERE / "mkvue.jsonl")  # held out: seeded dev/test split


if __name__ == "__main__":
    raise SystemExit(main())
