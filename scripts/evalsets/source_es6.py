"""Source of es6.jsonl: questions over 阮一峰《ECMAScript 6 入门》 (github.com/ruanyf/es6tutorial, commit fc58b0c1505654bde876ace4f8f1f7f5882876fa).

    python scripts/evalsets/source_es6.py [--corpus /work/evaldata/es6tutorial]
    python scripts/evalsets/check_sets.py es6.jsonl

must_contain was written from the gold lines, before kb was run on any question.
Unanswerable questions were checked with grep over README.md and docs/ (the key API/tool names do not occur).
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
    ("zh", "conceptual", "howto", "怎么把类数组对象转成真正的数组",
     [(D + "array.md", "`Array.from()`方法用于将两类对象转为真正的数组", "let arr2 = Array.from(arrayLike);"),
      (D + "style.md", "使用 Array.from 方法，将类似数组的对象转为数组。", "const nodes = Array.from(foo);"),
      (D + "iterator.md", "并不是所有类似数组的对象都具有 Iterator 接口", "for (let x of Array.from(arrayLike)) {")],
     ["Array.from"]),
    ("zh", "conceptual", "howto", "数组去重最简单的写法是什么？",
     [(D + "set-map.md", "上面代码也展示了一种去除数组重复成员的方法。", "[...new Set(array)]"),
      (D + "set-map.md", "这就提供了去除数组重复成员的另一种方法。", "return Array.from(new Set(array));"),
      (D + "set-map.md", "扩展运算符和 Set 结构相结合，就可以去除数组的重复成员。", "let unique = [...new Set(arr)];")],
     [["...new Set(", "Array.from(new Set("]]),
    ("zh", "conceptual", "howto", "用解构赋值交换两个变量的值",
     [(D + "destructuring.md", "**（1）交换变量的值**", "[x, y] = [y, x];")],
     [["[x, y] = [y, x]", "[a, b] = [b, a]"]]),
    ("zh", "conceptual", "howto", "嵌套了好几层的数组，怎么一次性拍平成一维数组？",
     [(D + "array.md", "如果不管有多少层嵌套，都要转成一维数组", "[1, [2, [3]]].flat(Infinity)")],
     ["flat(Infinity)"]),
    ("zh", "conceptual", "howto", "两个 await 互不依赖，怎么让它们同时触发而不是一个等一个",
     [(D + "async.md", "多个`await`命令后面的异步操作，如果不存在继发关系", "let bar = await barPromise;")],
     ["await Promise.all("]),
    ("zh", "conceptual", "howto", "class 里面怎么声明真正的私有属性，外部访问就报错的那种",
     [(D + "class.md", "正式为`class`添加了私有属性，方法是在属性名之前使用", "  #count = 0;")],
     [["#count", "在属性名之前使用"]]),
    ("zh", "exact", "howto", "正则的具名组匹配怎么写，匹配结果怎么按名字取？",
     [(D + "regex.md", "const RE_DATE = /(?<year>\\d{4})", "const day = matchObj.groups.day;")],
     ["(?<", ".groups."]),
    ("zh", "conceptual", "howto", "想写一个类似抽象类的东西：不能直接 new，只能被继承后使用，怎么做",
     [(D + "class.md", "利用这个特点，可以写出不能独立使用、必须继承后才能使用的类。", "throw new Error('本类不能实例化');")],
     ["new.target"]),
    # ---------------- 查值 / 查事实 ----------------
    ("zh", "exact", "lookup", "typeof 一个 Symbol 值返回什么",
     [(D + "symbol.md", "let s = Symbol();", "// \"symbol\"")], [["\"symbol\"", "'symbol'"]]),
    ("zh", "exact", "lookup", "2 ** 3 ** 2 的结果是多少？",
     [(D + "operator.md", "这个运算符的一个特点是右结合", "// 512")], ["512"]),
    ("zh", "exact", "lookup", "42n === 42 是 true 还是 false",
     [(D + "number.md", "BigInt 与普通整数是两种值，它们之间并不相等。", "42n === 42 // false")], [["false", "不相等"]]),
    ("zh", "exact", "lookup", "参数设了默认值以后，函数的 length 属性返回的是什么",
     [(D + "function.md", "指定了默认值以后，函数的`length`属性，将返回没有指定默认值的参数个数", "(function (a, b, c = 5) {}).length // 2")],
     ["没有指定默认值的参数个数"]),
    ("zh", "exact", "lookup", "import() 函数的返回值是什么类型",
     [(D + "module.md", "`import()`返回一个 Promise 对象。下面是一个例子。"), (D + "module.md", "由于`import()`返回 Promise", "对象，所以需要使用`then()`方法指定处理函数")],
     ["Promise"]),
    ("zh", "conceptual", "lookup", "有没有一种写法在浏览器、Node、Web Worker 里都能拿到顶层对象？",
     [(D + "let.md", "在语言标准的层面，引入`globalThis`作为顶层对象")], ["globalThis"]),
    # ---------------- 是什么 / 为什么 ----------------
    ("zh", "conceptual", "explain", "let 的暂时性死区是什么意思",
     [(D + "let.md", "总之，在代码块内，使用`let`命令声明变量之前，该变量都是不可用的"),
      (D + "let.md", "总之，暂时性死区的本质就是")],
     [["该变量都是不可用的", "不可获取"]]),
    ("zh", "conceptual", "explain", "尾调用是什么？",
     [(D + "function.md", "尾调用（Tail Call）是函数式编程的一个重要概念")], ["最后一步是调用另一个函数"]),
    ("zh", "conceptual", "explain", "async 函数本质上是什么东西",
     [(D + "async.md", "async 函数是什么？一句话，它就是 Generator 函数的语法糖。")], ["Generator 函数的语法糖"]),
    ("zh", "conceptual", "explain", "为啥装饰器不能用在普通函数上",
     [(D + "decorator.md", "装饰器只能用于类和类的方法，不能用于函数，因为存在函数提升。"),
      (D + "decorator.md", "总之，由于存在函数提升，使得装饰器不能用于函数。")], ["函数提升"]),
    ("zh", "exact", "explain", "子类的 constructor 里为什么一定要先调用 super()",
     [(D + "class-extends.md", "ES6 规定，子类必须在`constructor()`方法中调用`super()`，否则就会报错。")],
     [["得不到自己的", "先通过父类的构造函数"]]),
    ("zh", "conceptual", "explain", "Generator 函数该怎么理解",
     [(D + "generator.md", "Generator 函数有多种理解角度。", "执行 Generator 函数会返回一个遍历器对象")], ["状态机"]),
    # ---------------- 区别 ----------------
    ("zh", "relational", "comparison", "CommonJS 和 ES6 模块输出的值有什么不同",
     [(D + "module-loader.md", "CommonJS 模块输出的是值的拷贝，也就是说，一旦输出一个值"),
      (D + "module-loader.md", "ES6 模块的运行机制与 CommonJS 不一样。"),
      (D + "module-loader.md", "- CommonJS 模块输出的是一个值的拷贝，ES6 模块输出的是值的引用。")],
     ["值的拷贝", "动态引用"]),
    ("zh", "relational", "comparison", "Object.is 和 === 有啥不一样",
     [(D + "object-methods.md", "不同之处只有两个", "Object.is(NaN, NaN) // true"),
      (D + "object-methods.md", "ES5 比较两个值是否相等，只有两个运算符")],
     [["Object.is(NaN, NaN) // true", "等于自身"], "不等于自身"]),
    ("zh", "relational", "comparison", "遍历数组用 for...in 和 for...of 区别在哪",
     [(D + "iterator.md", "`for...in`循环有几个缺点。", "总之，`for...in`循环主要是为遍历对象而设计的"),
      (D + "iterator.md", "`for...of`循环相比上面几种做法，有一些显著的优点。", "- 提供了遍历所有数据结构的统一操作接口。"),
      (D + "iterator.md", "JavaScript 原有的`for...in`循环，只能获得对象的键名", "循环读取键名")],
     [["不适用于遍历数组", "以字符串作为键名"], "遍历所有数据结构的统一操作接口"]),
    ("zh", "relational", "comparison", "Promise.race() 跟 Promise.any() 的区别",
     [(D + "promise.md", "之中有一个实例率先改变状态"),
      (D + "promise.md", "`Promise.any()`跟`Promise.race()`方法很像，只有一点不同")],
     ["率先改变状态", ["不会因为某个 Promise 变成", "必须等到所有参数 Promise 变成"]]),
    ("zh", "relational", "comparison", "设置默认值时用 ?? 和用 || 有什么区别",
     [(D + "operator.md", "引入了一个新的 Null 判断运算符"),
      (D + "operator.md", "上面的三行代码都通过`||`运算符指定默认值，但是这样写是错的。")],
     ["只有运算符左侧的值为", "空字符串或"]),
    ("zh", "relational", "comparison", "Symbol.for() 和 Symbol() 生成的值有什么区别",
     [(D + "symbol.md", "`Symbol.for()`与`Symbol()`这两种写法，都会生成新的 Symbol。"),
      (D + "symbol.md", "上面代码中，由于`Symbol()`写法没有登记机制")],
     ["登记在全局环境中", "没有登记机制"]),
    # ---------------- 哪些章节提到 / 哪个文件 ----------------
    ("zh", "file_discovery", "mention", "书里哪几章提到了 Lodash 库？",
     [(D + "mixin.md", "很多库提供了 Mixin 功能。下面以 Lodash 为例。"),
      (D + "object-methods.md", "比如 Lodash 的`_.defaultsDeep()`方法"),
      (D + "module.md", "import 'lodash';"),
      (D + "module.md", "以输入 lodash 模块为例")],
     [D + "mixin.md", D + "object-methods.md"]),
    ("zh", "file_discovery", "file", "讲装饰器（Decorator）的是哪个文件", [(D + "decorator.md", 1)], [D + "decorator.md"]),
    # ---------------- 无答案（书中没有；已 grep 核对） ----------------
    ("zh", "conceptual", "unanswerable", "structuredClone 深拷贝能处理循环引用吗？", [], []),
    ("zh", "exact", "unanswerable", "Promise.withResolvers() 是干什么用的", [], []),
    ("zh", "conceptual", "unanswerable", "using 声明和 Symbol.dispose 怎么配合来自动释放资源", [], []),
    ("zh", "relational", "unanswerable", "process.nextTick 和 Promise.then 的回调谁先执行", [], []),
    ("zh", "conceptual", "unanswerable", "webpack 打包 ES6 模块时怎么开启 tree shaking", [], []),
    ("zh", "exact", "unanswerable", "String.prototype.isWellFormed() 怎么用来检查孤立的代理字符", [], []),
    # ---------------- English questions over the Chinese book ----------------
    ("en", "conceptual", "howto", "how do I pad a string to a fixed length in ES6?",
     [(D + "string-methods.md", "ES2017 引入了字符串补全长度的功能。", "'x'.padEnd(4, 'ab') // 'xaba'"),
      (D + "string-methods.md", "`padStart()`的常见用途是为数值补全指定位数", "'123456'.padStart(10, '0')")],
     [["padStart(", "padEnd("]]),
    ("en", "conceptual", "howto", "How can I get the last element of an array with a negative index?",
     [(D + "array.md", "为数组实例增加了`at()`方法，接受一个整数作为参数", "sentence.at(-1); // 'e'")],
     [["at()", ".at(-1)", ".at(-2)"]]),
    ("en", "conceptual", "howto", "How do I intercept and log every property read and write on an object?",
     [(D + "proxy.md", "var obj = new Proxy({}, {", "上面代码对一个空对象架设了一层拦截")],
     ["new Proxy("]),
    ("en", "exact", "lookup", "What is the value of Number.MAX_SAFE_INTEGER?",
     [(D + "number.md", "ES6 引入了`Number.MAX_SAFE_INTEGER`和`Number.MIN_SAFE_INTEGER`", "Number.MAX_SAFE_INTEGER === 9007199254740991")],
     ["9007199254740991"]),
    ("en", "exact", "lookup", "Does Object.assign make a deep copy of nested objects?",
     [(D + "object-methods.md", "`Object.assign()`方法实行的是浅拷贝，而不是深拷贝。")], ["浅拷贝"]),
    ("en", "relational", "comparison", "WeakMap vs Map: what's the difference?",
     [(D + "set-map.md", "`WeakMap`与`Map`的区别有两点。", "不计入垃圾回收机制。"),
      (D + "set-map.md", "但是“键”的范围不限于字符串，各种类型的值（包括对象）都可以当作键"),
      (D + "set-map.md", "WeakMap 与 Map 在 API 上的区别主要是两个")],
     ["只接受对象", "各种类型的值（包括对象）都可以当作键"]),
    ("en", "relational", "comparison", "Promise.all vs Promise.allSettled — when one request fails, what does each do?",
     [(D + "promise.md", "上面示例中，`Promise.all()`可以确定所有请求都成功了"),
      (D + "promise.md", "`Promise.allSettled()`方法接受一个数组作为参数"),
      (D + "promise.md", "之中有一个被`rejected`，`p`的状态就变成`rejected`"),
      (D + "promise.md", "该方法返回的新的 Promise 实例，一旦发生状态变更，状态总是")],
     ["只要有一个请求失败，它就会报错", "都发生状态变更"]),
    ("en", "conceptual", "explain", "What's the relationship between ECMAScript and JavaScript?",
     [(D + "intro.md", "因此，ECMAScript 和 JavaScript 的关系是，前者是后者的规格")], ["前者是后者的规格"]),
    ("en", "conceptual", "unanswerable", "How do I use Array.fromAsync to collect an async iterable into an array?", [], []),
    ("en", "conceptual", "unanswerable", "How do I get today's date with the Temporal API instead of Date?", [], []),
    ("en", "exact", "unanswerable", "What does the experimentalDecorators option in tsconfig change?", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "es6", Q, HERE / "es6.jsonl")


if __name__ == "__main__":
    raise SystemExit(main())
