// Names a generated project may not take. The project folder becomes a Python package
// (`<name>.workflow->Class` in ASTuner / AgentJet configs) and its name lands in YAML values,
// so it must not shadow a module the code imports, read as a YAML boolean, or be a Windows
// device name. Python's list is sys.stdlib_module_names (3.11) plus `test`.

/** Python keywords (3.11 keyword.kwlist); soft keywords (match, case, _) are valid names. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Top-level standard library modules (sys.stdlib_module_names without private ones). */
export const PYTHON_STDLIB: ReadonlySet<string> = new Set(
  `
  abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb
  binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop
  collections colorsys compileall concurrent configparser contextlib contextvars copy copyreg
  crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis distutils doctest email
  encodings ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch fractions ftplib
  functools gc genericpath getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html
  http idlelib imaplib imghdr imp importlib inspect io ipaddress itertools json keyword lib2to3
  linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder msilib
  msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse
  os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix
  posixpath pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri
  random re readline reprlib resource rlcompleter runpy sched secrets select selectors shelve
  shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd sqlite3 sre_compile
  sre_constants sre_parse ssl stat statistics string stringprep struct subprocess sunau symtable
  sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios test textwrap this threading
  time timeit tkinter token tokenize tomllib trace traceback tracemalloc tty turtle turtledemo
  types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg
  winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo
  `
    .trim()
    .split(/\s+/),
);

/** Packages the generated projects import or run next to. */
export const FRAMEWORK_PACKAGES: ReadonlySet<string> = new Set(
  'trinity agentscope agentscope_tuner astuner ajet openai pydantic datasets transformers torch ray vllm verl numpy yaml requests hydra omegaconf'.split(' '),
);

/** Module and folder names inside a generated project. */
export const PROJECT_FILE_NAMES: ReadonlySet<string> = new Set('workflow reward judge main agent_runner data checkpoints'.split(' '));

/** YAML 1.1 (PyYAML, OmegaConf) reads these as booleans or null. Compared lower-case. */
export const YAML_SPECIAL: ReadonlySet<string> = new Set('y n yes no on off true false null none'.split(' '));

/** Reserved device names on Windows, where a folder cannot have them. Compared lower-case. */
export const WINDOWS_DEVICES: ReadonlySet<string> = new Set(
  'con prn aux nul com1 com2 com3 com4 com5 com6 com7 com8 com9 lpt1 lpt2 lpt3 lpt4 lpt5 lpt6 lpt7 lpt8 lpt9'.split(' '),
);
