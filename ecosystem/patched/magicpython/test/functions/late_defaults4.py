def spread(
    first,
    second=>first * 2,
    /,
    third: int => second + 1,
):
    return first >= second


def           : meta.function.python, source.python, storage.type.function.python
              : meta.function.python, source.python
spread        : entity.name.function.python, meta.function.python, source.python
(             : meta.function.parameters.python, meta.function.python, punctuation.definition.parameters.begin.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
first         : meta.function.parameters.python, meta.function.python, source.python, variable.parameter.function.language.python
,             : meta.function.parameters.python, meta.function.python, punctuation.separator.parameters.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
second        : meta.function.parameters.python, meta.function.python, source.python, variable.parameter.function.language.python
=>            : keyword.operator.late-default.parameter.python, meta.function.parameters.python, meta.function.python, source.python
first         : meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
*             : keyword.operator.arithmetic.python, meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
2             : constant.numeric.dec.python, meta.function.parameters.python, meta.function.python, source.python
,             : meta.function.parameters.python, meta.function.python, punctuation.separator.parameters.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
/             : keyword.operator.positional.parameter.python, meta.function.parameters.python, meta.function.python, source.python
,             : meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
third         : meta.function.parameters.python, meta.function.python, source.python, variable.parameter.function.language.python
:             : meta.function.parameters.python, meta.function.python, punctuation.separator.annotation.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
int           : meta.function.parameters.python, meta.function.python, source.python, support.type.python
              : meta.function.parameters.python, meta.function.python, source.python
=>            : keyword.operator.late-default.parameter.python, meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
second        : meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
+             : keyword.operator.arithmetic.python, meta.function.parameters.python, meta.function.python, source.python
              : meta.function.parameters.python, meta.function.python, source.python
1             : constant.numeric.dec.python, meta.function.parameters.python, meta.function.python, source.python
,             : meta.function.parameters.python, meta.function.python, punctuation.separator.parameters.python, source.python
)             : meta.function.parameters.python, meta.function.python, punctuation.definition.parameters.end.python, source.python
:             : meta.function.python, punctuation.section.function.begin.python, source.python
              : source.python
return        : keyword.control.flow.python, source.python
              : source.python
first         : source.python
              : source.python
>=            : keyword.operator.comparison.python, source.python
              : source.python
second        : source.python
