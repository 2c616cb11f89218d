// Over 300 lines on purpose: a table of tokenizer cases, one per rule.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  analyze,
  analyzeQuery,
  analyzeWord,
  headingKey,
  isNonLatinTerm,
  plainWordForm,
  plainWordInitial,
  tokenize,
} from "./analyzer.ts";

describe("tokenize", () => {
  it("lower-cases words and drops punctuation", () => {
    expect(tokenize("Hello, World! (Again)")).toEqual(["hello", "world", "again"]);
  });

  it("splits camelCase into words and keeps the whole identifier", () => {
    expect(tokenize("onBrokenLinks")).toEqual(["on", "broken", "links", "onbrokenlinks"]);
  });

  it("splits an acronym from the word that follows it", () => {
    expect(tokenize("HTTPServer").slice(0, 2)).toEqual(["http", "server"]);
    expect(tokenize("XMLHttpRequest")).toEqual(["xml", "http", "request", "xmlhttprequest"]);
  });

  // Regression: CAMEL_BOUNDARY's acronym rule `(?<=\p{Lu})(?=\p{Lu}\p{Ll})` reads the last capital of an
  // acronym plus a plural "s" as a new word, so "URLs" becomes "ur" + "ls" and "APIs" becomes
  // "ap" + "is": a query for "ls" or "GP" then matches pages that only mention URLs or GPUs.
  it("does not split a plural acronym into fragments", () => {
    expect(tokenize("URLs")).not.toContain("ls");
    expect(tokenize("URLs")).not.toContain("ur");
    expect(analyze("APIs")).not.toContain("ap");
    expect(analyze("GPUs")).not.toContain("gp");
  });

  it("splits snake_case and keeps the whole identifier", () => {
    expect(tokenize("ros2_control")).toEqual(["ros2", "ros", "control", "ros2_control"]);
  });

  it("splits dotted names and keeps the whole name", () => {
    expect(tokenize("rclpy.spin")).toEqual(["rclpy", "spin", "rclpy.spin"]);
    expect(tokenize("tf2_ros.Buffer")).toEqual(["tf2", "tf", "ros", "buffer", "tf2_ros.buffer"]);
  });

  it("splits kebab-case and paths into their words", () => {
    expect(tokenize("sidebar-position").slice(0, 2)).toEqual(["sidebar", "position"]);
    expect(tokenize("std_msgs/String")).toEqual(["std", "msgs", "string", "std_msgs/string"]);
  });

  it("adds the letters of a letters-then-digits word", () => {
    expect(tokenize("ros2")).toEqual(["ros2", "ros"]);
    expect(tokenize("Python3")).toEqual(["python3", "python"]);
  });

  it("reads a decimal number as its value and its whole part, never the digits after the point", () => {
    expect(tokenize("about 9.8 m")).toEqual(["about", "9.8", "9", "m"]);
    expect(tokenize("z_c = 0.8 m")).not.toContain("8");
    // Its shorter forms meet a reader who writes fewer digits.
    expect(tokenize("+9.81")).toEqual(["9.81", "9.8", "9"]);
    // The value is what the reader wrote; the whole part only helps it meet a rounded one.
    expect(analyzeQuery("Why 9.8 on one axis?").words).toEqual(["9.8", "one", "axi"]);
    expect(analyzeQuery("Why 9.8 on one axis?").terms).toContain("9");
    // A version with more than one point keeps its parts, and its shorter forms meet a reader's.
    expect(tokenize("4.2.0")).toEqual(["4.2", "4", "2", "0", "4.2.0"]);
    expect(tokenize("Redux 4.2")).toEqual(["redux", "4.2", "4"]);
  });

  it("does not add letters for a single letter followed by digits", () => {
    expect(tokenize("v2")).toEqual(["v2"]);
  });

  it("keeps a word's possessive with a normalised apostrophe", () => {
    expect(tokenize("the node’s name")).toEqual(["the", "node's", "name"]);
  });

  it("returns nothing for text without letters or digits", () => {
    expect(tokenize("  --- !!! ... ")).toEqual([]);
  });
});

describe("tokenize: which identifiers are split", () => {
  it.each([
    ["mapStateToProps", ["map", "state", "to", "props", "mapstatetoprops"]],
    ["useSelector", ["use", "selector", "useselector"]],
    ["createStore", ["create", "store", "createstore"]],
  ])("splits the camelCase identifier %s into its words", (identifier, tokens) => {
    expect(tokenize(identifier)).toEqual(tokens);
  });

  it.each([
    ["PureComponent", ["pure", "component", "purecomponent"]],
    ["ConnectedComponent", ["connected", "component", "connectedcomponent"]],
    ["ReactDOM", ["react", "dom", "reactdom"]],
    ["LaserScan", ["laser", "scan", "laserscan"]],
  ])("splits the PascalCase name %s into its words", (identifier, tokens) => {
    expect(tokenize(identifier)).toEqual(tokens);
  });

  it.each([
    ["KaTeX", "katex"],
    ["iOS", "ios"],
    ["macOS", "macos"],
    ["GraphQL", "graphql"],
    ["NumPy", "numpy"],
    ["MongoDB", "mongodb"],
    ["RViz", "rviz"],
    ["eProsima", "eprosima"],
    ["kHz", "khz"],
  ])("keeps %s whole: a part under three letters is a fragment, not a word", (name, whole) => {
    expect(tokenize(name)).toEqual([whole]);
  });

  it.each([
    ["JavaScript", "javascript"],
    ["TypeScript", "typescript"],
    ["GitHub", "github"],
    ["GitLab", "gitlab"],
    ["WebSocket", "websocket"],
    ["PostgreSQL", "postgresql"],
    ["MySQL", "mysql"],
    ["YouTube", "youtube"],
  ])("keeps the product name %s whole", (name, whole) => {
    expect(tokenize(name)).toEqual([whole]);
  });

  it.each([
    ["GitHub", "Github", "github", "GITHUB"],
    ["JavaScript", "Javascript", "javascript"],
    ["KaTeX", "Katex", "katex"],
    ["macOS", "MacOS", "macos"],
  ])("gives %s the same terms however a reader capitalises it", (name, ...spellings) => {
    for (const spelling of spellings) expect(analyze(spelling)).toEqual(analyze(name));
  });

  it("makes a product name one word of the question, not two", () => {
    expect(analyzeQuery("Does GitHub Pages host it?")).toEqual({
      terms: ["github", "page", "host"],
      words: ["github", "page", "host"],
      identifiers: [],
      spelled: new Map([
        ["github", "GitHub"],
        ["page", "Pages"],
        ["host", "host"],
      ]),
    });
    expect(analyzeQuery("What does mapStateToProps return?").identifiers).toEqual([
      "mapstatetoprop",
    ]);
    expect(analyzeQuery("What does mapStateToProps return?").spelled.get("mapstatetoprop")).toBe(
      "mapStateToProps",
    );
  });

  it.each([
    // question, identifiers it names, terms it must not keep
    ["What does compose(a, b, c) return?", ["compos"], ["b", "c"]],
    ["When is dispatch() safe to call?", ["dispatch"], []],
    ["What does todoAdded(text, userId) make?", ["todoad", "userid"], []],
    ["Why does fn('x') throw?", ["fn"], ["x"]],
    ["What does compose return?", [], []],
    ["Is obj.method(a) allowed?", ["obj.method"], ["a"]],
  ])("names a word written as a call in '%s' as code", (question, identifiers, dropped) => {
    const analysed = analyzeQuery(question);
    expect(analysed.identifiers).toEqual(identifiers);
    for (const letter of dropped) {
      expect(analysed.terms).not.toContain(letter);
      expect(analysed.words).not.toContain(letter);
    }
  });

  it("keeps the longer arguments of a call as words of the question", () => {
    expect(analyzeQuery("What does todoAdded(text, userId) make?").words).toEqual(
      expect.arrayContaining(["text", "user", "id"]),
    );
  });

  it("glues a fragment to its neighbour and keeps the real words", () => {
    expect(tokenize("QoSProfile")).toEqual(["qos", "profile", "qosprofile"]);
    expect(tokenize("CMakeLists")).toEqual(["cmake", "lists", "cmakelists"]);
  });

  it("keeps a brand suffix whole inside a longer identifier", () => {
    expect(tokenize("useWebSocket")).toEqual(["use", "websocket", "usewebsocket"]);
  });

  it("splits a brand suffix after a lower-case verb, where it is an ordinary word", () => {
    expect(tokenize("runScript")).toEqual(["run", "script", "runscript"]);
    expect(tokenize("openSocket")).toEqual(["open", "socket", "opensocket"]);
  });

  it("keeps short parts that are words of their own", () => {
    expect(tokenize("groupId")).toEqual(["group", "id", "groupid"]);
    expect(tokenize("timeoutMs")).toEqual(["timeout", "ms", "timeoutms"]);
    expect(tokenize("IOError")).toEqual(["io", "error", "ioerror"]);
    expect(tokenize("apiV2")).toEqual(["api", "v2", "apiv2"]);
  });

  it("adds a hyphenated word written together, so either spelling finds the other", () => {
    expect(tokenize("re-render")).toEqual(["re", "render", "rerender"]);
    expect(analyze("Why doesn't it rerender?")).toEqual(analyze("rerender"));
    expect(analyze("re-rendering").at(-1)).toBe(analyze("rerendering")[0]);
    // Longer chains and identifiers are not glued: "state-of-the-art" is just its words.
    expect(tokenize("state-of-the-art")).toEqual(["state", "of", "the", "art"]);
  });

  it("keeps a product name whole inside a hyphenated word", () => {
    expect(tokenize("GitHub-flavored")).toEqual(["github", "flavored", "github-flavored"]);
  });
});

describe("tokenize: Chinese, Japanese and Korean", () => {
  it("indexes a Chinese run as overlapping bigrams", () => {
    expect(tokenize("中间件")).toEqual(["中间", "间件"]);
    expect(tokenize("如何配置中间件")).toEqual(["如何", "何配", "配置", "置中", "中间", "间件"]);
  });

  it("keeps a lone CJK character as a unigram", () => {
    expect(tokenize("中")).toEqual(["中"]);
    expect(tokenize("redux 和 saga")).toEqual(["redux", "和", "saga"]);
  });

  it("splits a CJK run from Latin letters and digits glued to it", () => {
    expect(tokenize("redux中间件")).toEqual(["redux", "中间", "间件"]);
    expect(tokenize("如何使用redux中间件？")).toEqual([
      "如何",
      "何使",
      "使用",
      "redux",
      "中间",
      "间件",
    ]);
    expect(tokenize("vue3组件")).toEqual(["vue3", "vue", "组件"]);
    expect(analyze("使用mapStateToProps")).toEqual(
      expect.arrayContaining(["使用", "map", "state", "mapstatetoprop"]),
    );
  });

  it("bigrams Japanese kana and kanji, keeping the prolonged sound mark", () => {
    expect(tokenize("サーバー")).toEqual(["サー", "ーバ", "バー"]);
    expect(tokenize("Reactのフック")).toEqual(["react", "のフ", "フッ", "ック"]);
  });

  it("bigrams Korean Hangul within each space-separated word", () => {
    expect(tokenize("한국어 문서")).toEqual(["한국", "국어", "문서"]);
  });

  it("reads full-width Latin and half-width kana as their usual forms", () => {
    expect(tokenize("ｒｅｄｕｘ２")).toEqual(tokenize("redux2"));
    expect(tokenize("ｻｰﾊﾞｰ")).toEqual(tokenize("サーバー"));
  });

  it("finds a CJK question's phrase in a document sentence that contains it", () => {
    const documentTerms = new Set(analyze("在Redux中，中间件用于处理异步操作。"));
    for (const term of analyze("redux中间件")) expect(documentTerms).toContain(term);
  });

  it("leaves scripts written with spaces alone", () => {
    expect(tokenize("Привет мир")).toEqual(["привет", "мир"]);
  });
});

describe("isNonLatinTerm", () => {
  it("is true for terms with letters outside the Latin script", () => {
    for (const term of ["中间", "中", "サー", "한국", "привет", "αβ", "redux中"]) {
      expect(isNonLatinTerm(term)).toBe(true);
    }
  });

  it("is false for Latin words, accented words, numbers and identifiers", () => {
    for (const term of ["redux", "café", "naïve", "2024", "ros2_control", "3.14"]) {
      expect(isNonLatinTerm(term)).toBe(false);
    }
  });

  it("recognises every term the analyzer makes from CJK text", () => {
    expect(analyze("如何使用中间件").every(isNonLatinTerm)).toBe(true);
  });
});

describe("analyze", () => {
  it("removes stopwords", () => {
    expect(analyze("what is the name of this node and how do I use it")).toEqual([
      "name",
      "node",
      "use",
    ]);
    expect(analyze("The and of to")).toEqual([]);
  });

  it("removes contracted stopwords", () => {
    expect(analyze("don't won't it's robot")).toEqual(["robot"]);
  });

  it("removes informal spellings of function words", () => {
    expect(analyze("I wanna cache data, gonna need it, pls help")).toEqual(
      analyze("I cache data, need it, help"),
    );
  });

  it("stems inflections of a word to one term", () => {
    const [running, runs, run] = ["running", "runs", "run"].map((text) => analyze(text));
    expect(running).toEqual(run);
    expect(runs).toEqual(run);
    expect(run).toHaveLength(1);
  });

  it("reads British and American spellings as one word", () => {
    for (const [british, american] of [
      ["visualise", "visualize"],
      ["visualising", "visualizing"],
      ["normalisation", "normalization"],
      ["colours", "colors"],
      ["behaviour", "behavior"],
      ["analyse", "analyze"],
      ["centre", "center"],
      ["metres", "meters"],
    ]) {
      expect(analyze(british as string), british).toEqual(analyze(american as string));
    }
    // Too short an ending's stem to be one of these spellings: left alone.
    expect(analyze("rise hour")).toEqual(["rise", "hour"]);
    expect(analyze("analysis")).not.toEqual(analyze("analyse"));
  });

  it("reads an adverb in '-ily' as its adjective, and keeps nouns in '-ily' whole", () => {
    for (const [adverb, adjective] of [
      ["lazily", "lazy"],
      ["easily", "easy"],
      ["necessarily", "necessary"],
      ["heavily", "heavy"],
    ]) {
      expect(analyze(adverb as string), adverb).toEqual(analyze(adjective as string));
    }
    expect(analyze("family")).toEqual(analyze("families"));
    // Short stems are left alone: "daily" is not "day" ("dai"), nor "rely" anything else.
    expect(analyze("daily")).toEqual(["daili"]);
    expect(analyze("rely")).toEqual(analyze("relies"));
  });

  it("reads 'lie', 'die' and 'tie' in every form as one word, and 'news' apart from 'new'", () => {
    for (const base of ["lie", "die", "tie"]) {
      for (const form of [`${base}s`, `${base}d`, `${base.slice(0, -2)}ying`]) {
        expect(analyze(form), form).toEqual([base]);
      }
    }
    expect(analyze("news")).not.toEqual(analyze("new"));
  });

  it("stems plural and singular to one term", () => {
    expect(analyze("kinematics")).toEqual(analyze("kinematic"));
    expect(analyze("configurations")).toEqual(analyze("configuration"));
    expect(analyze("links")).toEqual(analyze("link"));
  });

  it("keeps distinct words distinct", () => {
    expect(analyze("robot")).not.toEqual(analyze("route"));
    expect(analyze("node")).not.toEqual(analyze("nodes topic"));
  });

  it("splits an identifier into stemmed words, dropping stopword parts, and keeps it whole", () => {
    const terms = analyze("onBrokenLinks");
    expect(terms).toContain("broken");
    expect(terms).toEqual(expect.arrayContaining(analyze("links")));
    expect(terms).not.toContain("on");
    expect(terms).toHaveLength(3);
    expect(terms).toContain(analyze("onbrokenlinks")[0]);
  });

  it("keeps identifiers with digits or separators exactly, without stemming", () => {
    expect(analyze("ros2_control")).toEqual(["ros2", "ros", "control", "ros2_control"]);
    expect(analyze("rclpy.spin")).toEqual(["rclpy", "spin", "rclpy.spin"]);
    expect(analyze("tf2_ros.Buffer")).toEqual(["tf2", "tf", "ros", "buffer", "tf2_ros.buffer"]);
    expect(analyze("HTTPServer")).toEqual(expect.arrayContaining(["http", "server"]));
  });

  it("lets a plural acronym match its singular", () => {
    expect(analyze("Both APIs are stable")).toContain(analyze("API")[0]);
    expect(analyze("Relative URLs work")).toContain(analyze("URL")[0]);
  });

  it("lets 'ros2' match a query for 'ROS'", () => {
    expect(analyze("ros2")).toEqual(expect.arrayContaining(analyze("ROS")));
    expect(analyze("ROS 2")).toEqual(["ros", "2"]);
  });

  it("reduces possessives to the word", () => {
    expect(analyze("the robot's arm")).toEqual(["robot", "arm"]);
    expect(analyze("the robot’s arm")).toEqual(["robot", "arm"]);
    expect(analyze("ROBOT'S")).toEqual(analyze("robot"));
  });

  it("keeps numbers, including the parts and whole of a dotted version", () => {
    expect(analyze("port 8080")).toEqual(["port", "8080"]);
    expect(analyze("42")).toEqual(["42"]);
    expect(analyze("version 3.14")).toEqual(["version", "3.14", "3.1", "3"]);
    expect(analyze("version 3.14.1")).toEqual(["version", "3.14", "3", "14", "1", "3.14.1"]);
  });

  it("does not stem short words", () => {
    expect(analyze("bus")).toEqual(["bus"]);
    expect(analyze("gps")).toEqual(["gps"]);
  });

  it("drops absurdly long tokens", () => {
    expect(analyze(`${"a".repeat(45)} ok`)).toEqual(["ok"]);
  });

  it("keeps term frequency by keeping duplicates", () => {
    expect(analyze("node node node")).toEqual(["node", "node", "node"]);
  });

  it("keeps non-ASCII words", () => {
    expect(analyze("café naïve")).toEqual(["café", "naïve"]);
  });
});

describe("query and document analysis agree", () => {
  const cases = [
    {
      query: "How do I configure onBrokenLinks?",
      document: "Configuring the onBrokenLinks option in docusaurus.config.js",
    },
    {
      query: "ros2_control hardware interfaces",
      document: "The ros2_control framework talks to hardware through an interface.",
    },
    {
      query: "what does rclpy.spin do",
      document: "Call rclpy.spin(node) to process callbacks until shutdown.",
    },
    {
      query: "tf2_ros.Buffer lookups",
      document: "Create a tf2_ros.Buffer and look up transforms; each lookup may block.",
    },
    {
      query: "running robots kinematics",
      document: "When a robot runs, its kinematic chain is computed.",
    },
    {
      query: "HTTPServer port 8080",
      document: "The HTTPServer listens on port 8080 by default.",
    },
  ];

  it.each(cases)("finds every term of '$query' in the document", ({ query, document }) => {
    const documentTerms = new Set(analyze(document));
    for (const term of analyze(query)) expect(documentTerms).toContain(term);
  });

  it("gives the exact identifier the same terms in a query and in a document", () => {
    const identifiers = ["onBrokenLinks", "ros2_control", "rclpy.spin", "tf2_ros.Buffer"];
    for (const identifier of identifiers) {
      const inDocument = analyze(`See \`${identifier}\` for details.`);
      expect(inDocument).toEqual(expect.arrayContaining(analyze(identifier)));
    }
  });

  it("matches a description in words to an identifier in the document", () => {
    const documentTerms = new Set(analyze("Set onBrokenLinks to 'throw'."));
    for (const term of analyze("broken link")) expect(documentTerms).toContain(term);
  });
});

describe("analyzeWord", () => {
  it.each([
    "Robot,",
    "(gains).",
    "“servo”",
    "'quoted'",
    "[note]",
    "the",
    "The",
    "A",
    "running;",
    "Kinematics:",
    "robot's",
    "onBrokenLinks",
    "ros2_control,",
    "HTTPServer",
    "URLs",
    "re-render",
    "café",
    "ｒｅｄｕｘ",
    "redux中间件",
    "JavaScript.",
    "x",
    "...",
    "—",
  ])("gives %j the terms analyze gives it", (word) => {
    expect(analyzeWord(word)).toEqual(analyze(word));
  });

  it("agrees with analyze on every word of the sample book", async () => {
    const docs = path.join(import.meta.dirname, "../../../../examples/robotics-primer/docs");
    const files = (await readdir(docs, { recursive: true })).filter((file) => /\.mdx?$/.test(file));
    expect(files.length).toBeGreaterThan(10);
    const words = new Set<string>();
    for (const file of files) {
      for (const word of (await readFile(path.join(docs, file), "utf8")).split(/\s+/)) {
        if (word) words.add(word);
      }
    }
    expect(words.size).toBeGreaterThan(3_000);
    const differing = [...words].filter(
      (word) => JSON.stringify(analyzeWord(word)) !== JSON.stringify(analyze(word)),
    );
    expect(differing).toEqual([]);
    // Every term of a plain word starts with the word's first letter (what snippets rely on).
    const plain = [...words].filter((word) => plainWordInitial(word) !== undefined);
    expect(plain.length).toBeGreaterThan(2_000);
    const otherInitial = plain.filter((word) =>
      analyze(word).some((term) => term[0] !== plainWordInitial(word)),
    );
    expect(otherInitial).toEqual([]);
  });

  it("names the first letter of plain words only", () => {
    expect(plainWordInitial("(Gains),")).toBe("g");
    expect(plainWordInitial("yelling")).toBe("y");
    expect(plainWordInitial("onBrokenLinks")).toBeUndefined();
    expect(plainWordInitial("café")).toBeUndefined();
    expect(plainWordInitial("ros2")).toBeUndefined();
  });
});

describe("plainWordForm", () => {
  const form = (word: string) => plainWordForm(word)?.form;

  it("reads inflections of a word as one form", () => {
    expect(form("Reducers")).toBe(form("reducer"));
    expect(form("libraries")).toBe(form("library"));
    expect(form("classes")).toBe(form("class"));
    expect(form("dispatching")).toBe(form("dispatch"));
    expect(form("caching")).toBe(form("cache"));
    expect(form("mapping")).toBe(form("map"));
    expect(form("statuses")).toBe(form("status"));
    expect(form("visualisations")).toBe(form("visualization"));
    expect(form("**node**,")).toBe(form("node"));
  });

  it("keeps words derived from one another apart, although they share a term", () => {
    expect(plainWordForm("immutable")?.term).toBe(plainWordForm("immutability")?.term);
    expect(form("immutable")).not.toBe(form("immutability"));
    expect(plainWordForm("publishes")?.term).toBe(plainWordForm("publisher")?.term);
    expect(form("publishes")).not.toBe(form("publisher"));
    expect(form("normalizing")).not.toBe(form("normalization"));
  });

  it("leaves short -ing and -ed words whole", () => {
    expect(form("string")).toBe("string");
    expect(form("embedding")).toBe(form("embed"));
  });

  it("has no form for code, acronyms, numbers and stopwords", () => {
    expect(plainWordForm("createStore")).toBeUndefined();
    expect(plainWordForm("URDF")).toBeUndefined();
    expect(plainWordForm("robot_state_publisher")).toBeUndefined();
    expect(plainWordForm("42")).toBeUndefined();
    expect(plainWordForm("the")).toBeUndefined();
  });
});

describe("headingKey", () => {
  it("is one key for a heading's case, plural, article and emphasis", () => {
    expect(headingKey("The Reducers")).toBe(headingKey("reducer"));
    expect(headingKey("**Immutability**")).toBe(headingKey("immutability"));
    expect(headingKey("Launch Files")).toBe(headingKey("launch file"));
  });

  it("tells a heading of a derived word or with more words apart", () => {
    expect(headingKey("Immutable")).not.toBe(headingKey("immutability"));
    expect(headingKey("Immutable Data")).not.toBe(headingKey("immutable"));
  });
});
