// ANTLR 4 input: a small statement language (expressions, assignments, if/while, functions).
grammar Calc;
program   : (function | statement)* EOF ;
function  : 'def' ID '(' params? ')' block ;
params    : ID (',' ID)* ;
block     : '{' statement* '}' ;
statement : ID '=' expr ';'                         # assign
          | 'if' '(' expr ')' block ('else' block)? # if
          | 'while' '(' expr ')' block              # while
          | 'return' expr ';'                       # return
          | 'print' '(' args? ')' ';'               # print
          | expr ';'                                # exprStmt
          ;
args      : expr (',' expr)* ;
expr      : expr op=('*' | '/' | '%') expr          # mul
          | expr op=('+' | '-') expr                # add
          | expr op=('<' | '>' | '==' | '!=') expr  # cmp
          | expr '&&' expr                          # and
          | expr '||' expr                          # or
          | '!' expr                                # not
          | ID '(' args? ')'                        # call
          | ID '[' expr ']'                         # index
          | '[' args? ']'                           # list
          | '(' expr ')'                            # paren
          | NUMBER                                  # number
          | STRING                                  # string
          | ID                                      # name
          ;
ID        : [a-zA-Z_] [a-zA-Z_0-9]* ;
NUMBER    : [0-9]+ ('.' [0-9]+)? ;
STRING    : '"' (~["\\] | '\\' .)* '"' ;
COMMENT   : '#' ~[\r\n]* -> skip ;
WS        : [ \t\r\n]+ -> skip ;
