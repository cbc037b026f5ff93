"""Source of es6_dev2.jsonl: extra dev (tuning) questions over 阮一峰《ECMAScript 6 入门》 (github.com/ruanyf/es6tutorial).

    python scripts/evalsets/source_es6_dev2.py [--corpus /work/evaldata/es6tutorial]
    python scripts/evalsets/check_sets.py es6_dev2.jsonl --corpus /work/evaldata/es6tutorial

Every row is split "dev". The facts differ from those asked in es6.jsonl.
must_contain was written from the gold lines, before kb was run on any question.
Unanswerable questions were checked with grep over README.md and docs/ (the key API names do not occur).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/evaldata/es6tutorial")
D = "docs/"

Q: list[tuple] = [
    # ---------------- 怎么写（代码 / 方法调用） ----------------
    ("zh", "conceptual", "howto", "ArrayBuffer 和字符串之间怎么互相转换？",
     [(D + "arraybuffer.md", "`ArrayBuffer` 和字符串的相互转换，使用原生", "const view = encoder.encode(input)")],
     ["TextDecoder", "TextEncoder"]),
    ("zh", "conceptual", "howto", "很长的数字字面量能不能加个分隔符方便看，比如一万亿",
     [(D + "number.md", "允许 JavaScript 的数值使用下划线", "budget === 10 ** 12 // true")],
     [["1_000_000", "下划线"]]),
    ("zh", "conceptual", "howto", "0.1 + 0.2 不等于 0.3，那两个浮点数该怎么判断相等",
     [(D + "number.md", "`Number.EPSILON`可以用来设置“能够接受的误差范围”", "withinErrorMargin(0.1 + 0.2, 0.3) // true")],
     ["Number.EPSILON"]),
    ("zh", "conceptual", "howto", "想做到对象属性一改就自动执行某些函数（观察者模式），用 Proxy 怎么写",
     [(D + "reflect.md", "下面，使用 Proxy 写一个观察者模式的最简单实现", "  return result;")],
     ["new Proxy(obj, {set})"]),
    ("zh", "conceptual", "howto", "node 读文件流，能不能不监听 data 事件，直接用循环一块一块读？",
     [(D + "async-iterator.md", "Node v10 支持异步遍历器，Stream 就部署了这个接口", "for await (const chunk of readStream) {")],
     ["for await (const chunk of readStream)"]),
    ("zh", "exact", "howto", "Node 项目里不想把文件都改成 .mjs，又想用 import/export，咋整",
     [(D + "module-loader.md", "如果不希望将后缀名改成`.mjs`", '"type": "module"'),
      (D + "module-loader.md", "总结为一句话：`.mjs`文件总是以 ES6 模块加载")],
     ['"type": "module"']),
    ("zh", "exact", "howto", "import 能直接导入 json 配置文件吗？语法咋写",
     [(D + "proposals.md", "import 命令能够直接加载 JSON 模块以后", "console.log(configData.appName);"),
      (D + "proposals.md", "import('./config.json', { assert: { type: 'json' } })")],
     [['assert { type: "json" }', "assert: { type: 'json' }"]]),
    # ---------------- 查值 / 查事实 ----------------
    ("zh", "exact", "lookup", "Float64Array 每个元素占几个字节",
     [(D + "arraybuffer.md", "| Float64  | 8"),
      (D + "arraybuffer.md", "- **`Float64Array`**：64 位浮点数，长度 8 个字节。"),
      (D + "arraybuffer.md", "Float64Array.BYTES_PER_ELEMENT // 8")],
     [["BYTES_PER_ELEMENT // 8", "长度 8 个字节"]]),
    ("zh", "exact", "lookup", "Math.sign(-0) 返回啥",
     [(D + "number.md", "- 参数为-0，返回`-0`;", "Math.sign(-0) // -0")],
     ["Math.sign(-0) // -0"]),
    ("zh", "exact", "lookup", "ES6 里一共有几种声明变量的方式？",
     [(D + "let.md", "### ES6 声明变量的六种方法", "所以，ES6 一共有 6 种声明变量的方法。")],
     [["6 种声明变量的方法", "六种方法"]]),
    ("zh", "exact", "lookup", "new RegExp(/abc/ig, 'i') 这么写最后修饰符是哪个？会不会报错",
     [(D + "regex.md", "ES6 改变了这种行为。如果`RegExp`构造函数第一个参数是一个正则对象", "上面代码中，原有正则对象的修饰符是`ig`")],
     [["只使用新指定的修饰符", "被第二个参数"]]),
    ("zh", "exact", "lookup", "遍历对象属性时，数字键、字符串键、Symbol 键谁先谁后",
     [(D + "object.md", "以上的 5 种方法遍历对象的键名，都遵守同样的属性遍历的次序规则", "- 最后遍历所有 Symbol 键")],
     ["按照数值升序排列"]),
    # ---------------- 区别 ----------------
    ("zh", "relational", "comparison", "Number.isFinite() 和全局的 isFinite() 有啥区别",
     [(D + "number.md", "注意，如果参数类型不是数值，`Number.isFinite`一律返回`false`。"),
      (D + "number.md", "它们与传统的全局方法`isFinite()`和`isNaN()`的区别在于"),
      (D + "number.md", "isFinite(25) // true", 'Number.isFinite("25") // false')],
     ["如果参数类型不是数值", "传统方法先调用"]),
    ("zh", "relational", "comparison", "往 Uint8Array 和 Uint8ClampedArray 里写 256，结果一样吗",
     [(D + "arraybuffer.md", "TypedArray 数组的溢出处理规则，简单来说", "uint8[0] // 255"),
      (D + "arraybuffer.md", "`Uint8ClampedArray`视图的溢出规则，与上面的规则不同", "uint8c[0] // 0")],
     ["抛弃溢出的位", "一律等于当前数据类型的最大值"]),
    ("zh", "relational", "comparison", "传值调用和传名调用是啥区别",
     [(D + "generator-async.md", "（call by value）"),
      (D + "generator-async.md", "（call by name）")],
     ["在进入函数体之前", "只在用到它的时候求值"]),
    ("zh", "relational", "comparison", "<script type=\"module\"> 默认什么时候执行？加上 async 以后有什么不同",
     [(D + "module-loader.md", "浏览器对于带有`type=\"module\"`的`<script>`，都是异步加载", "如果网页有多个`<script type=\"module\">`"),
      (D + "module-loader.md", "一旦使用了`async`属性，`<script type=\"module\">`就不会按照")],
     ["等同于打开了", "只要该模块加载完成，就执行该模块"]),
    # ---------------- 是什么 / 为什么 ----------------
    ("zh", "conceptual", "explain", "const 声明的对象为什么还能往里加属性？",
     [(D + "let.md", "`const`实际上保证的，并不是变量的值不得改动")],
     ["内存地址"]),
    ("zh", "conceptual", "explain", "模板字符串前面直接跟个函数名，像 alert`hello` 这种，是什么写法",
     [(D + "string.md", "这被称为“标签模板”功能", "标签模板其实不是模板，而是函数调用的一种特殊形式")],
     ["函数调用的一种特殊形式"]),
    ("zh", "conceptual", "explain", "协程是啥？跟 Generator 有什么关系",
     [(D + "generator-async.md", "（coroutine）"),
      (D + "generator-async.md", "Generator 函数是协程在 ES6 的实现")],
     ["协程在 ES6 的实现"]),
    ("zh", "conceptual", "explain", "SharedArrayBuffer 是拿来干嘛的",
     [(D + "arraybuffer.md", "允许 Worker 线程与主线程共享同一块内存")],
     ["共享同一块内存"]),
    # ---------------- 无答案（书中没有；已 grep 核对） ----------------
    ("zh", "conceptual", "unanswerable", "ArrayBuffer 建好以后还能扩容吗？resize() 和 maxByteLength 怎么用", [], []),
    ("zh", "exact", "unanswerable", "Float16Array 半精度浮点数组怎么用", [], []),
    ("zh", "exact", "unanswerable", "RegExp.escape() 能不能把用户输入里的正则特殊字符转义掉", [], []),
    ("zh", "conceptual", "unanswerable", "主线程里用 Atomics.waitAsync 异步等待共享内存变化，怎么写", [], []),
    # ---------------- English questions over the Chinese book ----------------
    ("en", "conceptual", "howto", "How do I write a compose helper that chains two functions using arrow functions?",
     [(D + "fp.md", "函数合成（function composition）指的是", "f(2) // 20")],
     ["f => g => x => f(g(x))"]),
    ("en", "conceptual", "howto", "Is there a way to run initialization logic for static class fields once, inside the class body?",
     [(D + "class.md", "为了解决这个问题，ES2022 引入了", "static {")],
     ["static {"]),
    ("en", "exact", "lookup", "what does String.raw`Hi\\n${2+3}!` return?",
     [(D + "string-methods.md", "String.raw`Hi\\n${2+3}!`", "// 实际返回")],
     ["Hi\\\\n5!"]),
    ("en", "relational", "comparison", "Object.keys vs Reflect.ownKeys — which one includes symbol and non-enumerable keys?",
     [(D + "object.md", "`Object.keys`返回一个数组，包括对象自身的"),
      (D + "object.md", "`Reflect.ownKeys`返回一个数组，包含对象自身的"),
      (D + "reflect.md", "`Reflect.ownKeys`方法用于返回对象的所有属性")],
     ["所有可枚举属性（不含 Symbol 属性）", "也不管是否可枚举"]),
    ("en", "conceptual", "explain", "what's the do expression proposal about?",
     [(D + "proposals.md", "https://github.com/tc39/proposal-do-expressions", "`do`表达式的逻辑非常简单")],
     ["返回内部最后执行的表达式的值"]),
    ("en", "conceptual", "unanswerable", "How do I use iterator helpers like .map() and .take() directly on a generator object?", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "esd", Q, HERE / "es6_dev2.jsonl", only_split="dev")  # all tuning questions


if __name__ == "__main__":
    raise SystemExit(main())
