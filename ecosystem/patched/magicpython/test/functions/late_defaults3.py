square = lambda x, y=>x * x: y
nested = lambda a, b=>lambda c=>a: c: b


square        : source.python
              : source.python
=             : keyword.operator.assignment.python, source.python
              : source.python
lambda        : meta.lambda-function.python, source.python, storage.type.function.lambda.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
x             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python, variable.parameter.function.language.python
,             : meta.function.lambda.parameters.python, meta.lambda-function.python, punctuation.separator.parameters.python, source.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
y             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python, variable.parameter.function.language.python
=>            : keyword.operator.late-default.parameter.python, meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
x             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
*             : keyword.operator.arithmetic.python, meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
x             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
:             : meta.lambda-function.python, punctuation.section.function.lambda.begin.python, source.python
              : source.python
y             : source.python
nested        : source.python
              : source.python
=             : keyword.operator.assignment.python, source.python
              : source.python
lambda        : meta.lambda-function.python, source.python, storage.type.function.lambda.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
a             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python, variable.parameter.function.language.python
,             : meta.function.lambda.parameters.python, meta.lambda-function.python, punctuation.separator.parameters.python, source.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
b             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python, variable.parameter.function.language.python
=>            : keyword.operator.late-default.parameter.python, meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
lambda        : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python, storage.type.function.lambda.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
c             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python, variable.parameter.function.language.python
=>            : keyword.operator.late-default.parameter.python, meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
a             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
:             : meta.function.lambda.parameters.python, meta.lambda-function.python, punctuation.section.function.lambda.begin.python, source.python
              : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
c             : meta.function.lambda.parameters.python, meta.lambda-function.python, source.python
:             : meta.lambda-function.python, punctuation.section.function.lambda.begin.python, source.python
              : source.python
b             : source.python
