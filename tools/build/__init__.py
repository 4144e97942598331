"""Making the interpreter: from the pinned tarball and patches/ to ./python, an installed
copy, a relocatable archive and python.wasm.

  deps           the Debian build packages: check them, or install them as root
                 (make deps, make deps-check)
  fetch_cpython  the pinned, checksum-verified upstream tarball (make fetch)
  pq             the patch queue: build/cpython = upstream + patches/, export back, status,
                 the build tag (make tree, make status)
  series         the layout of patches/: one series in two parts, semantics and performance
  git            git as the tools run it: no user configuration, a fixed identity
  tree_files     the files of a CPython tree the build regenerates, and their make targets
  cpython        configure, regenerate and build a tree in place; the baseline and the
                 clones of make debug, asan, freethreaded, tier2 (make build, make baseline)
  install        install like `make altinstall`, or pack a relocatable archive
                 (make install, make dist)
  wasm           the patched tree cross-compiled to wasm32-wasi, cached (make wasm)

Run one as ``python3 -m tools.build.NAME --help``.
"""
