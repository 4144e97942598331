def append(item, target: list[int] => [], when: float=>now()) -> list:
    pass


def           : meta.function.python, source.python, storage.type.function.python
              : meta.function.python, source.python
append        : entity.name.function.python, meta.function.python, source.python
(             : meta.function.parameters.python, meta.function.python, punctuation.definition.parameters.begin.python, source.python
item          : meta.function.parameters.python, meta.function.python, source.python, variable.parameter.function.language.python
,             : meta.function.parameters.python, meta.function.python, punctuation.separator.parameters.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
target        : meta.function.parameters.python, meta.function.python, source.python, variable.parameter.function.language.python
:             : meta.function.parameters.python, meta.function.python, punctuation.separator.annotation.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
list          : meta.function.parameters.python, meta.function.python, meta.indexed-name.python, meta.item-access.python, source.python
[             : meta.function.parameters.python, meta.function.python, meta.item-access.python, punctuation.definition.arguments.begin.python, source.python
int           : meta.function.parameters.python, meta.function.python, meta.item-access.arguments.python, meta.item-access.python, source.python, support.type.python
]             : meta.function.parameters.python, meta.function.python, meta.item-access.python, punctuation.definition.arguments.end.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
=>            : keyword.operator.late-default.parameter.python, meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
[             : meta.function.parameters.python, meta.function.python, punctuation.definition.list.begin.python, source.python
]             : meta.function.parameters.python, meta.function.python, punctuation.definition.list.end.python, source.python
,             : meta.function.parameters.python, meta.function.python, punctuation.separator.parameters.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
when          : meta.function.parameters.python, meta.function.python, source.python, variable.parameter.function.language.python
:             : meta.function.parameters.python, meta.function.python, punctuation.separator.annotation.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
float         : meta.function.parameters.python, meta.function.python, source.python, support.type.python
=>            : keyword.operator.late-default.parameter.python, meta.function.parameters.python, meta.function.python, source.python
now           : meta.function-call.generic.python, meta.function-call.python, meta.function.parameters.python, meta.function.python, source.python
(             : meta.function-call.python, meta.function.parameters.python, meta.function.python, punctuation.definition.arguments.begin.python, source.python
)             : meta.function-call.python, meta.function.parameters.python, meta.function.python, punctuation.definition.arguments.end.python, source.python
)             : meta.function.parameters.python, meta.function.python, punctuation.definition.parameters.end.python, source.python
              : meta.function.python, source.python
->            : meta.function.python, punctuation.separator.annotation.result.python, source.python
              : meta.function.python, source.python
list          : meta.function.python, source.python, support.type.python
:             : meta.function.python, punctuation.section.function.begin.python, source.python
              : source.python
pass          : keyword.control.flow.python, source.python
